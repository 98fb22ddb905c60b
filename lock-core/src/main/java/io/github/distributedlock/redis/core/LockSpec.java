package io.github.distributedlock.redis.core;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.script.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * A lock request with every default filled in and every key name built, made by
 * {@code LockRequestResolver}: what it names (the lock, its keys and channel, what a hold
 * of it is in Redis), how long it waits and holds, and how it waits.
 *
 * @param name the lock
 * @param lockKey the lock's key in Redis
 * @param releaseChannel the channel a release publishes on
 * @param kind what a hold of the lock is in Redis
 * @param permits the number of permits of a semaphore, 0 for locks
 * @param queueId the id of the local wait queue: the wait channel, qualified by kind
 * @param leaseMillis how long a hold stays in Redis if never released nor renewed
 * @param waitNanos the wait time, or {@code -1} to wait indefinitely
 * @param progressAware whether the wait time restarts when the lock changes hands
 * @param autoRenew whether the watchdog renews the lease while the lock is held
 * @param holdAtLeastMillis the minimum hold: the lock stays taken until this long after
 * it was acquired, even if released earlier (0 for none)
 * @param fairWaiterTimeoutMillis how long a fair waiter keeps its place without calling
 * @param waitMode how a waiter learns that the lock may have become free
 * @param reentrant whether the lock's holder may take it again
 * @param origin where the lock was requested, if known
 */
public record LockSpec(LockName name, String lockKey, String releaseChannel, LockKind kind, int permits, String queueId,
		long leaseMillis, long waitNanos, boolean progressAware, boolean autoRenew, long holdAtLeastMillis,
		long fairWaiterTimeoutMillis, WaitMode waitMode, boolean reentrant, @Nullable String origin) {

	public LockSpec withLeaseMillis(long leaseMillis) {
		return new LockSpec(this.name, this.lockKey, this.releaseChannel, this.kind, this.permits, this.queueId,
				leaseMillis, this.waitNanos, this.progressAware, this.autoRenew, this.holdAtLeastMillis,
				this.fairWaiterTimeoutMillis, this.waitMode, this.reentrant, this.origin);
	}

	public LockSpec withWaitNanos(long waitNanos) {
		return new LockSpec(this.name, this.lockKey, this.releaseChannel, this.kind, this.permits, this.queueId,
				this.leaseMillis, waitNanos, this.progressAware, this.autoRenew, this.holdAtLeastMillis,
				this.fairWaiterTimeoutMillis, this.waitMode, this.reentrant, this.origin);
	}

}
