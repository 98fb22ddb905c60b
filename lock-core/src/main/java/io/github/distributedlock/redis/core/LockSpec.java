package io.github.distributedlock.redis.core;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.script.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * A lock request with every default filled in and every key name built, made by
 * {@code LockRequestResolver}; its accessors read through to its parts.
 *
 * @param origin where the lock was requested, if known
 */
public record LockSpec(LockTarget target, LockTiming timing, WaitMode waitMode, boolean reentrant,
		@Nullable String origin) {

	public LockName name() {
		return this.target.name();
	}

	public String lockKey() {
		return this.target.lockKey();
	}

	public String releaseChannel() {
		return this.target.releaseChannel();
	}

	public LockKind kind() {
		return this.target.kind();
	}

	public int permits() {
		return this.target.permits();
	}

	public String queueId() {
		return this.target.queueId();
	}

	public long leaseMillis() {
		return this.timing.leaseMillis();
	}

	public long waitNanos() {
		return this.timing.waitNanos();
	}

	public boolean progressAware() {
		return this.timing.progressAware();
	}

	public boolean autoRenew() {
		return this.timing.autoRenew();
	}

	public long holdAtLeastMillis() {
		return this.timing.holdAtLeastMillis();
	}

	public long fairWaiterTimeoutMillis() {
		return this.timing.fairWaiterTimeoutMillis();
	}

	public LockSpec withLeaseMillis(long leaseMillis) {
		return new LockSpec(this.target, this.timing.withLeaseMillis(leaseMillis), this.waitMode, this.reentrant,
				this.origin);
	}

	public LockSpec withWaitNanos(long waitNanos) {
		return new LockSpec(this.target, this.timing.withWaitNanos(waitNanos), this.waitMode, this.reentrant,
				this.origin);
	}

}
