package io.github.distributedlock.redis.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What an acquisition won: the hold's tokens, the clock reading its lease counts from,
 * and how the wait went.
 *
 * @param owner the owner Redis records for the hold, which every script of it carries
 * @param token the token Redis records for the hold, which every script of it carries
 * @param hold the hold's id, which its release, extensions and renewals name
 * @param sentNanos the clock reading taken before the winning attempt was sent
 * @param waited whether the caller waited (several attempts, or behind a local waiter)
 * @param attempts how many times the acquire script ran
 * @param shownToken the fencing token the handle, its events and its exceptions show: the
 * hold's token, or for a holder a cohort passed the hold to in memory, a later one of the
 * block the hold reserved (docs/design/cohorting.md, rule 3)
 * @param cohort the cohort the hold belongs to, which its release may pass it in, or
 * {@code null}
 */
public record Grant(LockSpec spec, String owner, long token, String hold, long sentNanos, boolean waited,
		Duration waitedFor, int attempts, long shownToken, @Nullable Cohort cohort) {

	/** A grant of a hold's own token, as every grant from Redis is. */
	public Grant(LockSpec spec, String owner, long token, String hold, long sentNanos, boolean waited,
			Duration waitedFor, int attempts) {
		this(spec, owner, token, hold, sentNanos, waited, waitedFor, attempts, token, null);
	}

	/** Return this grant as the opening hold of a cohort. */
	public Grant openedCohort(Cohort opened) {
		return new Grant(this.spec, this.owner, this.token, this.hold, this.sentNanos, this.waited, this.waitedFor,
				this.attempts, this.shownToken, opened);
	}

}
