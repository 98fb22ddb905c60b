package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

/**
 * A lock request with every default filled in and every key name built: what the wait
 * loop and the handle need. Made by {@link LockRequestResolver}.
 *
 * @param name the lock name
 * @param lockKey the lock hash key
 * @param releaseChannel the channel the release script publishes on
 * @param waitChannels the channels waiters listen on (for keyspace events of a lock,
 * those of the lock and of its readers)
 * @param leaseMillis the lease
 * @param waitNanos the wait time, or {@code -1} to wait indefinitely
 * @param strategy the wait strategy
 * @param reentrant whether the owner may take the lock again
 * @param progressAware whether the wait time restarts when the lock changes hands
 * @param pollNanos the poll interval, for {@link WaitStrategy#POLLING}
 * @param origin where the lock was requested, if known
 * @param autoRenew whether the watchdog renews the lease while held
 * @param kind what the hold is in Redis
 * @param permits the number of permits of a semaphore, 0 for locks
 * @param queueId the id of the local wait queue: the wait channel, qualified by kind
 * @param fairWaiterTimeoutMillis how long a fair waiter keeps its place without calling
 * @param holdAtLeastMillis the minimum hold: the lock stays taken until this long after
 * it was acquired, even if released earlier (0 for none)
 */
record LockSpec(LockName name, String lockKey, String releaseChannel, List<String> waitChannels, long leaseMillis,
		long waitNanos, WaitStrategy strategy, boolean reentrant, boolean progressAware, long pollNanos,
		@Nullable String origin, boolean autoRenew, LockKind kind, int permits, String queueId,
		long fairWaiterTimeoutMillis, long holdAtLeastMillis) {

	boolean waitsIndefinitely() {
		return this.waitNanos < 0;
	}

	/**
	 * Return the key of the lock's line of waiters' requests (see
	 * {@link HandOffRequest}).
	 */
	String requestsKey() {
		return LockKeys.requests(this.lockKey);
	}

	LockSpec withLeaseMillis(long leaseMillis) {
		return new LockSpec(this.name, this.lockKey, this.releaseChannel, this.waitChannels, leaseMillis,
				this.waitNanos, this.strategy, this.reentrant, this.progressAware, this.pollNanos, this.origin,
				this.autoRenew, this.kind, this.permits, this.queueId, this.fairWaiterTimeoutMillis,
				this.holdAtLeastMillis);
	}

	LockSpec withWaitNanos(long waitNanos) {
		return new LockSpec(this.name, this.lockKey, this.releaseChannel, this.waitChannels, this.leaseMillis,
				waitNanos, this.strategy, this.reentrant, this.progressAware, this.pollNanos, this.origin,
				this.autoRenew, this.kind, this.permits, this.queueId, this.fairWaiterTimeoutMillis,
				this.holdAtLeastMillis);
	}

}
