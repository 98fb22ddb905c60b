package io.github.distributedlock.redis.core;

import java.util.List;

import io.github.distributedlock.WaitStrategy;

/**
 * How a waiter learns that a lock may have become free, resolved once per request from
 * its {@link WaitStrategy}: the channels it listens on, how long it may sleep between
 * attempts, and what its hand-off request claims. The engine asks it, not the strategy.
 *
 * @param strategy the strategy it was resolved from
 * @param channels the channels waiters listen on: the release channel for pub/sub; for
 * keyspace events those of the lock, of its readers, and the release channel (for the
 * reservations the keys' events don't tell apart); the lock key itself when polling,
 * where it only names the local line
 * @param pollNanos the poll interval; a sleep is capped by it only when polling
 */
public record WaitMode(WaitStrategy strategy, List<String> channels, long pollNanos) {

	public WaitMode {
		channels = List.copyOf(channels);
	}

	/** Resolve the wait of one lock. */
	public static WaitMode of(WaitStrategy strategy, String lockKey, String releaseChannel, LockKeys keys,
			long pollNanos) {
		List<String> channels = switch (strategy) {
			case PUBSUB -> List.of(releaseChannel);
			// A writer may wait for readers, whose set is deleted when the last leaves.
			case KEYSPACE_EVENTS ->
				List.of(keys.keyspaceChannel(lockKey), keys.keyspaceChannel(LockKeys.readers(lockKey)), releaseChannel);
			case POLLING -> List.of(lockKey);
		};
		return new WaitMode(strategy, channels, pollNanos);
	}

	/** Return whether waiters listen (pub/sub or keyspace events) rather than poll. */
	public boolean listens() {
		return this.strategy != WaitStrategy.POLLING;
	}

	public boolean keyspaceEvents() {
		return this.strategy == WaitStrategy.KEYSPACE_EVENTS;
	}

	/**
	 * Return how long a waiter may sleep, given how long it would sleep for other
	 * reasons: a poller wakes at least every poll interval.
	 */
	long capSleep(long sleepNanos) {
		return listens() ? sleepNanos : Math.min(sleepNanos, this.pollNanos);
	}

	/** Return a new hand-off request for this mode ({@link HandOffRequest#of}). */
	HandOffRequest request(UniqueIds ids) {
		return HandOffRequest.of(listens() ? 0 : this.pollNanos, ids);
	}

}
