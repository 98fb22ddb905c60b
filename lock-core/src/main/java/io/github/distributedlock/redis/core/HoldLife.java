package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

/**
 * The times of one hold by the local clock, and what they decide: when its lease ends
 * (never later than the lease Redis keeps, see {@link LeaseEnd}), when the watchdog
 * renews it, what a renewal that got no answer means, and what is left of its minimum
 * hold at release. No I/O: every method is given the time. Thread-safe.
 */
public final class HoldLife {

	/** How soon a renewal that got no answer is tried again, while the lease lasts. */
	public static final long RENEWAL_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final LeaseEnd leaseEnd;

	private final long leaseMillis;

	private final long holdAtLeastMillis;

	private final long grantedNanos;

	private volatile long nextRenewalNanos;

	/**
	 * @param grantedNanos when the granting reply was read: the lock surely was taken
	 */
	public HoldLife(Grant grant, long grantedNanos) {
		this(grant, grantedNanos, new LeaseEnd(grant.sentNanos(), grant.spec().leaseMillis()));
	}

	/**
	 * A life over a lease end it shares with the holds before it: a hold a cohort passed
	 * on in memory keeps the one Redis hold's end as it is, and every renewal or
	 * extension Redis confirms to any of them moves it for all (docs/design/cohorting.md,
	 * rule 6). The first renewal is due a period after the latest send that end implies.
	 * @param grantedNanos when the hold was granted: the pass, for a passed hold
	 */
	public HoldLife(Grant grant, long grantedNanos, LeaseEnd leaseEnd) {
		this.leaseMillis = grant.spec().leaseMillis();
		this.holdAtLeastMillis = grant.spec().holdAtLeastMillis();
		this.leaseEnd = leaseEnd;
		this.grantedNanos = grantedNanos;
		this.nextRenewalNanos = leaseEnd.nanos() - TimeUnit.MILLISECONDS.toNanos(this.leaseMillis)
				+ renewalPeriodNanos(this.leaseMillis);
	}

	/**
	 * Return how often a hold is renewed: a third of its lease, so that two renewals can
	 * fail before it ends.
	 */
	public static long renewalPeriodNanos(long leaseMillis) {
		return TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3;
	}

	public long leaseEndNanos() {
		return this.leaseEnd.nanos();
	}

	public boolean isOver(long nowNanos) {
		return this.leaseEnd.nanos() - nowNanos <= 0;
	}

	public long remainingNanos(long nowNanos) {
		return Math.max(0, this.leaseEnd.nanos() - nowNanos);
	}

	public long nextRenewalNanos() {
		return this.nextRenewalNanos;
	}

	/**
	 * Record a renewal that Redis confirmed, sent at {@code sentNanos}; the next renewal
	 * is a period after it.
	 */
	public void renewed(long sentNanos) {
		this.leaseEnd.confirmed(sentNanos, this.leaseMillis);
		this.nextRenewalNanos = sentNanos + renewalPeriodNanos(this.leaseMillis);
	}

	/** Record an extension that Redis confirmed; the renewals keep their schedule. */
	public void extended(long sentNanos, long leaseMillis) {
		this.leaseEnd.confirmed(sentNanos, leaseMillis);
	}

	/**
	 * Record a renewal that got no answer (Redis may still have run it).
	 * @return whether the hold is lost (its lease is over by the local clock); if not,
	 * the renewal is tried again after {@link #RENEWAL_RETRY_NANOS}
	 */
	public boolean renewalFailed(long nowNanos) {
		if (isOver(nowNanos)) {
			return true;
		}
		this.nextRenewalNanos = nowNanos + RENEWAL_RETRY_NANOS;
		return false;
	}

	/**
	 * Return what is left of the minimum hold, counted from the granting reply: the lock
	 * was surely taken by then, so it stays taken at least that long.
	 */
	public long minimumHoldLeftMillis(long nowNanos) {
		if (this.holdAtLeastMillis <= 0) {
			return 0;
		}
		long heldMillis = TimeUnit.NANOSECONDS.toMillis(nowNanos - this.grantedNanos);
		return Math.max(0, this.holdAtLeastMillis - heldMillis);
	}

	/** Return how long the hold has lasted, from the granting reply. */
	public long heldNanos(long nowNanos) {
		return nowNanos - this.grantedNanos;
	}

}
