package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

/**
 * The times of one hold by the local clock, and what they decide: when its lease ends
 * (never later than the lease Redis keeps, see {@link LeaseEnd}), when the watchdog
 * renews it, what a renewal that got no answer means, and what is left of its minimum
 * hold when it is released. Shared by the blocking and the reactive handle and the
 * simulation. No I/O: every method is given the time it is asked at. Thread-safe.
 */
public final class HoldLife {

	/**
	 * How soon a renewal that got no answer (a timeout, a lost connection) is tried
	 * again, as long as the lease lasts by the local clock.
	 */
	public static final long RENEWAL_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final LeaseEnd leaseEnd;

	private final long leaseMillis;

	private final long holdAtLeastMillis;

	private final long grantedNanos;

	private volatile long nextRenewalNanos;

	/**
	 * @param grant what the acquisition won, with when its attempt was sent
	 * @param grantedNanos when the granting reply was read: the lock was surely taken by
	 * then
	 */
	public HoldLife(Grant grant, long grantedNanos) {
		this.leaseMillis = grant.spec().leaseMillis();
		this.holdAtLeastMillis = grant.spec().holdAtLeastMillis();
		this.leaseEnd = new LeaseEnd(grant.sentNanos(), this.leaseMillis);
		this.grantedNanos = grantedNanos;
		this.nextRenewalNanos = grant.sentNanos() + renewalPeriodNanos(this.leaseMillis);
	}

	/**
	 * Return how often a hold with the given lease is renewed: a third of the lease, so
	 * that two renewals can fail before it ends.
	 */
	public static long renewalPeriodNanos(long leaseMillis) {
		return TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3;
	}

	/**
	 * Return when the lease ends by the local clock.
	 */
	public long leaseEndNanos() {
		return this.leaseEnd.nanos();
	}

	/**
	 * Return whether the lease is over by the local clock at the given time.
	 */
	public boolean isOver(long nowNanos) {
		return this.leaseEnd.nanos() - nowNanos <= 0;
	}

	/**
	 * Return how long the lease lasts from the given time, 0 if it is over.
	 */
	public long remainingNanos(long nowNanos) {
		return Math.max(0, this.leaseEnd.nanos() - nowNanos);
	}

	/**
	 * Return when the watchdog renews this hold next.
	 */
	public long nextRenewalNanos() {
		return this.nextRenewalNanos;
	}

	/**
	 * Record a renewal that Redis confirmed, sent at the given time: the lease ends no
	 * earlier than a lease after it, and the next renewal is a period after it.
	 */
	public void renewed(long sentNanos) {
		this.leaseEnd.confirmed(sentNanos, this.leaseMillis);
		this.nextRenewalNanos = sentNanos + renewalPeriodNanos(this.leaseMillis);
	}

	/**
	 * Record an extension that Redis confirmed, sent at the given time for the given
	 * lease. The renewals keep their schedule.
	 */
	public void extended(long sentNanos, long leaseMillis) {
		this.leaseEnd.confirmed(sentNanos, leaseMillis);
	}

	/**
	 * Record a renewal that got no answer. Redis may still have run it, but nothing
	 * confirmed it.
	 * @param nowNanos when the failure was seen
	 * @return whether the hold is lost: its lease is over by the local clock, so from
	 * here on nobody may rely on it; if not, the renewal is tried again after
	 * {@link #RENEWAL_RETRY_NANOS}
	 */
	public boolean renewalFailed(long nowNanos) {
		if (isOver(nowNanos)) {
			return true;
		}
		this.nextRenewalNanos = nowNanos + RENEWAL_RETRY_NANOS;
		return false;
	}

	/**
	 * Return what is left of the minimum hold at the given time, in whole milliseconds,
	 * counted from when the granting reply was read: the lock was surely granted before
	 * then, so it stays taken at least that long.
	 */
	public long minimumHoldLeftMillis(long nowNanos) {
		if (this.holdAtLeastMillis <= 0) {
			return 0;
		}
		long heldMillis = TimeUnit.NANOSECONDS.toMillis(nowNanos - this.grantedNanos);
		return Math.max(0, this.holdAtLeastMillis - heldMillis);
	}

	/**
	 * Return how long the hold has lasted at the given time, from the granting reply.
	 */
	public long heldNanos(long nowNanos) {
		return nowNanos - this.grantedNanos;
	}

}
