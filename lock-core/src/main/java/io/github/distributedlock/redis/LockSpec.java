package io.github.distributedlock.redis;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

/**
 * A lock request with every default filled in and every key name built: what the wait loop
 * and the handle need.
 *
 * @param name the lock name
 * @param lockKey the lock hash key
 * @param fenceKey the fencing counter key
 * @param releaseChannel the channel the release script publishes on
 * @param waitChannel the channel waiters listen on, which also names the local wait queue
 * @param leaseMillis the lease
 * @param waitNanos the wait time, or {@code -1} to wait indefinitely
 * @param strategy the wait strategy
 * @param reentrant whether the owner may take the lock again
 * @param progressAware whether the wait time restarts when the lock changes hands
 * @param pollNanos the poll interval, for {@link WaitStrategy#POLLING}
 * @param origin where the lock was requested, if known
 * @param autoRenew whether the watchdog renews the lease while held
 */
record LockSpec(LockName name, String lockKey, String fenceKey, String releaseChannel, String waitChannel,
		long leaseMillis, long waitNanos, WaitStrategy strategy, boolean reentrant, boolean progressAware,
		long pollNanos, @Nullable String origin, boolean autoRenew) {

	boolean waitsIndefinitely() {
		return this.waitNanos < 0;
	}

	LockSpec withWaitNanos(long waitNanos) {
		return new LockSpec(this.name, this.lockKey, this.fenceKey, this.releaseChannel, this.waitChannel,
				this.leaseMillis, waitNanos, this.strategy, this.reentrant, this.progressAware, this.pollNanos,
				this.origin, this.autoRenew);
	}

}
