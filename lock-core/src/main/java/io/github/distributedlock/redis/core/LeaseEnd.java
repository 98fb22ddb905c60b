package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a hold's lease ends by the local clock: never later than the lease Redis keeps for
 * it. Redis only ever lengthens a lease while the hold lives ({@code lengthen_lease} in
 * {@code lib.lua}), so a reply that confirmed a lease of {@code L} ms to a command sent
 * at {@code t} says that the lease lasts at least until {@code t + L}. The end is the
 * latest of those: replies may arrive in any order (a renewal's after an extension's),
 * and a command may run twice, without the end ever passing Redis's.
 */
public final class LeaseEnd {

	private final AtomicLong endNanos;

	/**
	 * @param sentNanos when the acquisition that won the hold was sent
	 * @param leaseMillis the lease it asked for
	 */
	public LeaseEnd(long sentNanos, long leaseMillis) {
		this.endNanos = new AtomicLong(sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
	}

	/**
	 * Record a reply that confirmed a lease: a renewal or an extension sent at
	 * {@code sentNanos} for {@code leaseMillis}.
	 * @return the end now
	 */
	public long confirmed(long sentNanos, long leaseMillis) {
		long end = sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		return this.endNanos.accumulateAndGet(end,
				(current, candidate) -> (candidate - current > 0) ? candidate : current);
	}

	public long nanos() {
		return this.endNanos.get();
	}

}
