package io.github.distributedlock.redis.core;

/**
 * How long a resolved request waits and holds. Part of a {@link LockSpec}.
 *
 * @param waitNanos the wait time, or {@code -1} to wait indefinitely
 * @param progressAware whether the wait time restarts when the lock changes hands
 * @param holdAtLeastMillis the minimum hold: the lock stays taken until this long after
 * it was acquired, even if released earlier (0 for none)
 * @param fairWaiterTimeoutMillis how long a fair waiter keeps its place without calling
 */
public record LockTiming(long leaseMillis, long waitNanos, boolean progressAware, boolean autoRenew,
		long holdAtLeastMillis, long fairWaiterTimeoutMillis) {

	public LockTiming withLeaseMillis(long leaseMillis) {
		return new LockTiming(leaseMillis, this.waitNanos, this.progressAware, this.autoRenew, this.holdAtLeastMillis,
				this.fairWaiterTimeoutMillis);
	}

	public LockTiming withWaitNanos(long waitNanos) {
		return new LockTiming(this.leaseMillis, waitNanos, this.progressAware, this.autoRenew, this.holdAtLeastMillis,
				this.fairWaiterTimeoutMillis);
	}

}
