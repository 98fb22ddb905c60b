package io.github.distributedlock.inmemory;

/**
 * The lease of one hold, on the monotonic clock. A renewed lease stands for one the
 * watchdog renews: it never runs out while held, since nothing in one JVM can pause the
 * renewal past it.
 */
final class Lease {

	private final long leaseNanos;

	private final boolean renewed;

	private long endNanos;

	Lease(long now, long leaseNanos, boolean renewed) {
		this.leaseNanos = leaseNanos;
		this.renewed = renewed;
		this.endNanos = now + leaseNanos;
	}

	boolean isRenewed() {
		return this.renewed;
	}

	boolean expired(long now) {
		return !this.renewed && now - this.endNanos >= 0;
	}

	long remaining(long now) {
		return this.renewed ? this.leaseNanos : Math.max(0, this.endNanos - now);
	}

	/**
	 * Return when the lease ends if nobody renews it from now on.
	 */
	long end(long now) {
		return this.renewed ? now + this.leaseNanos : this.endNanos;
	}

	/**
	 * Lengthen the lease to end no sooner than {@code now + nanos}; never shorten it.
	 */
	void atLeast(long now, long nanos) {
		if (now + nanos - this.endNanos > 0) {
			this.endNanos = now + nanos;
		}
	}

	/**
	 * Return when a released hold with a minimum hold until {@code holdUntil} stops
	 * keeping the lock taken: the minimum hold, capped by the lease.
	 */
	long lingerEnd(long now, long holdUntil) {
		long end = end(now);
		return (holdUntil - end < 0) ? holdUntil : end;
	}

}
