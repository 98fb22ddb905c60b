package io.github.distributedlock.redis.driver;

import io.github.distributedlock.redis.core.Grant;
import org.jspecify.annotations.Nullable;

/**
 * What the release of a cohort's hold needs from its template's lines
 * (docs/design/cohorting.md, rules 4, 5 and 8): the pass to a head asleep under the
 * cohort, and the signal that the cohort ended. {@link LocalLines} is one.
 */
public interface CohortRelease {

	/**
	 * Pass the hold of the releasing grant's cohort to the head of the line that opened
	 * it, in memory, if every check of the hand-over holds.
	 * @param minimumHoldLeftMillis what is left of the releasing hold's minimum hold
	 * @return the hand-over, which tells the head it holds the lock, for the caller to
	 * run once it has told of its own release (so that nobody hears of the next holder
	 * first); or {@code null} if no head took it: then the caller releases through Redis
	 */
	@Nullable Runnable pass(Grant releasing, long minimumHoldLeftMillis);

	/**
	 * End the grant's cohort, if it has one: no further pass, and the heads asleep under
	 * it attempt. Called once the release of its holder's last local hold was answered or
	 * failed.
	 */
	void ended(Grant grant);

	/**
	 * The grant's hold may be gone from Redis: a renewal, extension or release was
	 * answered -1 or -2, or a release 0. No further pass, and the heads asleep under the
	 * cohort attempt (rule 8); but the cohort stays the lock's while its holder has local
	 * holds, whose re-entries need its owner (rule 7). A reply about a hold already
	 * released locally may be stale: its hold field was dropped by that release.
	 */
	void lost(Grant grant);

}
