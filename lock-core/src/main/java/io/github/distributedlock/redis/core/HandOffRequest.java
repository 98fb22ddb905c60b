package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

/**
 * A waiter's place in a lock's line of requests, filed in Redis with its attempts. The
 * last release reserves the lock for the oldest request, whose waiter's own next attempt
 * takes it ({@code release.lua}, {@code docs/design/waiting-and-hand-off.md}).
 * <p>
 * The member {@code <claim>:<id>} carries the claim, how long the reservation waits for
 * the waiter's attempt, and a {@link UniqueIds} id, new for every wait: no two waiters
 * share a request, even of one custom owner in two processes, and it names no owner.
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
	 * How long a lock's requests live after the last filing: waiters file again at least
	 * every {@link #REFILE_NANOS}, so only a line nobody waits in lapses.
	 */
	public static final long VALIDITY_MILLIS = 30000;

	public static final long REFILE_NANOS = TimeUnit.MILLISECONDS.toNanos(VALIDITY_MILLIS) / 2;

	/**
	 * Return how long a waiter that filed this request sleeps at most between attempts:
	 * half its claim, so a reservation whose message was lost is taken before it lapses.
	 */
	public long retryNanos() {
		return Math.min(REFILE_NANOS, TimeUnit.MILLISECONDS.toNanos(claimMillis(this.member)) / 2);
	}

	/**
	 * Create a request for one wait.
	 * @param pollNanos the poll interval, or 0 for a waiter woken by messages: a poller
	 * hears of its reservation only when it next polls, so the claim lasts three polls
	 * @param ids the port's ids
	 */
	public static HandOffRequest of(long pollNanos, UniqueIds ids) {
		long claim = Math.max(CLAIM_MILLIS, 3 * TimeUnit.NANOSECONDS.toMillis(pollNanos));
		return new HandOffRequest(claim + ":" + ids.next());
	}

	public static long claimMillis(String member) {
		return Long.parseLong(member.substring(0, member.indexOf(':')));
	}

}
