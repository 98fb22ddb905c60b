package io.github.distributedlock.redis;

import io.github.distributedlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * A lock request with every default filled in and every key name built: what the wait
 * loop and the handle need. Made by {@link LockRequestResolver}. The accessors below read
 * through to its parts, which is what most of the engine asks for.
 *
 * @param target what it names: the lock, its keys, its kind
 * @param timing how long it waits and holds
 * @param waitMode how waiters learn the lock may be free: channels, sleep cap, request
 * @param reentrant whether the owner may take the lock again
 * @param origin where the lock was requested, if known
 */
record LockSpec(LockTarget target, LockTiming timing, WaitMode waitMode, boolean reentrant, @Nullable String origin) {

	LockName name() {
		return this.target.name();
	}

	String lockKey() {
		return this.target.lockKey();
	}

	String releaseChannel() {
		return this.target.releaseChannel();
	}

	LockKind kind() {
		return this.target.kind();
	}

	int permits() {
		return this.target.permits();
	}

	String queueId() {
		return this.target.queueId();
	}

	long leaseMillis() {
		return this.timing.leaseMillis();
	}

	long waitNanos() {
		return this.timing.waitNanos();
	}

	boolean progressAware() {
		return this.timing.progressAware();
	}

	boolean autoRenew() {
		return this.timing.autoRenew();
	}

	long holdAtLeastMillis() {
		return this.timing.holdAtLeastMillis();
	}

	long fairWaiterTimeoutMillis() {
		return this.timing.fairWaiterTimeoutMillis();
	}

	boolean waitsIndefinitely() {
		return waitNanos() < 0;
	}

	/**
	 * Return the key of the lock's line of waiters' requests (see
	 * {@link HandOffRequest}).
	 */
	String requestsKey() {
		return LockKeys.requests(lockKey());
	}

	LockSpec withLeaseMillis(long leaseMillis) {
		return new LockSpec(this.target, this.timing.withLeaseMillis(leaseMillis), this.waitMode, this.reentrant,
				this.origin);
	}

	LockSpec withWaitNanos(long waitNanos) {
		return new LockSpec(this.target, this.timing.withWaitNanos(waitNanos), this.waitMode, this.reentrant,
				this.origin);
	}

}
