package io.github.distributedlock;

/**
 * How a caller that finds a lock taken learns that it may have become free.
 * <p>
 * Whatever the strategy, a waiter never sleeps longer than the holder's remaining lease,
 * so a crashed holder is noticed when its lease ends.
 */
public enum WaitStrategy {

	/**
	 * Wake on a message that the release script publishes on the lock's own channel. One
	 * subscription per lock per JVM, shared by all local waiters. The default.
	 */
	PUBSUB,

	/**
	 * Wake on Redis keyspace notifications ({@code del}, {@code expired},
	 * {@code evicted}) for the lock key. Needs {@code notify-keyspace-events} to include
	 * {@code Kgx}.
	 */
	KEYSPACE_EVENTS,

	/**
	 * Retry at a fixed interval, for setups without pub/sub.
	 */
	POLLING

}
