package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a hold's lease ends by the local clock: never later than the lease Redis keeps for
 * it. No command shortens a lease ({@code lengthen_lease} in {@code lib.lua}), so a reply
 * confirming {@code L} ms to a command sent at {@code t} means the lease lasts until
 * {@code t + L} at least; the end is the latest of those, whatever the order of replies
 * and however often commands run. Thread-safe.
 */
public final class LeaseEnd {

	private final AtomicLong endNanos;

	/**
	 * @param sentNanos when the attempt that won the hold was sent
	 */
	public LeaseEnd(long sentNanos, long leaseMillis) {
		this.endNanos = new AtomicLong(sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
	}

	/** Record a renewal or extension Redis confirmed, and return the end now. */
	public long confirmed(long sentNanos, long leaseMillis) {
		long end = sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		return this.endNanos.accumulateAndGet(end,
				(current, candidate) -> (candidate - current > 0) ? candidate : current);
	}

	public long nanos() {
		return this.endNanos.get();
	}

}
