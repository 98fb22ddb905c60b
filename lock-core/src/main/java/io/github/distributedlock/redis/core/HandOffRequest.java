package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

/**
 * A waiter's place in a lock's line of requests, filed in Redis with its attempts. When
 * the last hold is released, the lock is reserved for the oldest request and its waiter
 * is told to take it; its own next attempt does (see {@code release.lua} and
 * {@code docs/design/waiting-and-hand-off.md}).
 * <p>
 * The member {@code <claim>:<id>} carries the claim: how long the reservation waits for
 * the waiter's attempt before it lapses. The id is new for every wait and unique across
 * processes (random per JVM, plus a counter), so two waiters, even of one custom owner in
 * two processes, never share a request. It names no owner, so publishing it reveals
 * nothing.
 *
 * @param member the sorted-set member
 */
public record HandOffRequest(String member) {

	/**
	 * How long a reservation waits for its waiter's attempt, unless the waiter polls less
	 * often: what a waiter that died after filing its request costs the others at most.
	 */
	public static final long CLAIM_MILLIS = 2000;

	/**
	 * How long the requests of a lock live after the last filing: every waiter files its
	 * request again at least every {@link #REFILE_NANOS}, so only a line nobody waits in
	 * any more lapses.
	 */
	public static final long VALIDITY_MILLIS = 30000;

	public static final long REFILE_NANOS = TimeUnit.MILLISECONDS.toNanos(VALIDITY_MILLIS) / 2;

	/**
	 * Return how long a waiter that filed this request sleeps at most between attempts:
	 * half its claim, so that a reservation whose message was lost is still taken by its
	 * waiter's next attempt before the claim lapses.
	 */
	public long retryNanos() {
		return Math.min(REFILE_NANOS, TimeUnit.MILLISECONDS.toNanos(claimMillis(this.member)) / 2);
	}

	/**
	 * Create a request for one wait.
	 * @param pollNanos how often the waiter tries without being told, or 0 when it is
	 * woken by messages: a polling waiter's reservation lasts for three of its polls
	 */
	public static HandOffRequest of(long pollNanos) {
		long claim = Math.max(CLAIM_MILLIS, 3 * TimeUnit.NANOSECONDS.toMillis(pollNanos));
		return new HandOffRequest(claim + ":" + UniqueIds.next());
	}

	/**
	 * Return the claim of a request member, in milliseconds.
	 */
	public static long claimMillis(String member) {
		return Long.parseLong(member.substring(0, member.indexOf(':')));
	}

}
