package io.github.distributedlock.redis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A waiter's request, filed in Redis with its attempts, to be handed the lock straight by
 * the holder's release (see {@code release.lua}) instead of being woken to try again.
 * <p>
 * The member {@code <lease> <ticket> <owner>} carries the lease the waiter asked for, and a
 * ticket that is new for every wait, so that a hand-off message of an earlier wait of the
 * same thread is never taken for this one.
 *
 * @param member the sorted-set member
 */
record HandOffRequest(String member) {

	/**
	 * How long a filed request stays valid: a waiter files it again at least every half of
	 * this, so only a waiter that died (or lost Redis) lets it lapse.
	 */
	static final String VALIDITY_MILLIS = "30000";

	static final long REFILE_NANOS = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(VALIDITY_MILLIS)) / 2;

	private static final AtomicLong tickets = new AtomicLong();

	static HandOffRequest of(long leaseMillis, String owner) {
		return new HandOffRequest(leaseMillis + " " + tickets.incrementAndGet() + " " + owner);
	}

	/**
	 * A lock handed to a waiter, as its release message announced it:
	 * {@code handoff:<token> <claim> <member>}.
	 *
	 * @param token the fencing token of the new hold
	 * @param claimMillis the claim lease the lock got, until its new owner confirms its lease
	 * @param member the request it was handed to
	 * @param receivedNanos when the message arrived
	 */
	record HandOff(long token, long claimMillis, String member, long receivedNanos) {

		static final String PREFIX = "handoff:";

		static HandOff parse(String body, long receivedNanos) {
			int tokenEnd = body.indexOf(' ', PREFIX.length());
			int claimEnd = body.indexOf(' ', tokenEnd + 1);
			return new HandOff(Long.parseLong(body.substring(PREFIX.length(), tokenEnd)),
					Long.parseLong(body.substring(tokenEnd + 1, claimEnd)), body.substring(claimEnd + 1), receivedNanos);
		}

	}

}
