package io.github.distributedlock.redis.core;

import io.github.distributedlock.redis.driver.Cohorts;
import org.jspecify.annotations.Nullable;

/**
 * Makes cohorts of the engine's own {@link Cohort} with one bug planted, in a subclass
 * that breaks one of its rules: the cohort simulation must find each.
 */
public final class PlantedCohortBugs {

	private PlantedCohortBugs() {
	}

	/** Pass past the block Redis granted. */
	public static Cohorts.Maker passingPastBlock() {
		return (number, owner, firstToken, block, openedNanos, timeLimitNanos, leaseEnd) -> new Cohort(number, owner,
				firstToken, block, openedNanos, timeLimitNanos, leaseEnd) {

			@Override
			boolean blockUsed(int holders, int granted) {
				return false;
			}

		};
	}

	/** Pass past the cohort's time limit. */
	public static Cohorts.Maker passingPastTimeLimit() {
		return (number, owner, firstToken, block, openedNanos, timeLimitNanos, leaseEnd) -> new Cohort(number, owner,
				firstToken, block, openedNanos, timeLimitNanos, leaseEnd) {

			@Override
			boolean pastTimeLimit(long ageNanos, long limitNanos) {
				return false;
			}

		};
	}

	/** Count the lease again from each pass, as if Redis had renewed it then. */
	public static Cohorts.Maker leaseFromPass() {
		return (number, owner, firstToken, block, openedNanos, timeLimitNanos, leaseEnd) -> new Cohort(number, owner,
				firstToken, block, openedNanos, timeLimitNanos, leaseEnd) {

			@Override
			void passed(long nowNanos) {
				leaseEnd().confirmed(nowNanos, (leaseEnd().nanos() - openedNanos()) / 1_000_000);
			}

		};
	}

	/** Give every passed holder the block's first token to show, which Redis records. */
	public static Cohorts.Maker showingFirstToken() {
		return (number, owner, firstToken, block, openedNanos, timeLimitNanos, leaseEnd) -> new Cohort(number, owner,
				firstToken, block, openedNanos, timeLimitNanos, leaseEnd) {

			@Override
			long passedToken(int holders) {
				return firstToken();
			}

		};
	}

	/**
	 * Take any caller's acquisition, a previous holder's too, as the holder's re-entry.
	 */
	public static Cohorts.Maker reenteringAnyCaller() {
		return (number, owner, firstToken, block, openedNanos, timeLimitNanos, leaseEnd) -> new Cohort(number, owner,
				firstToken, block, openedNanos, timeLimitNanos, leaseEnd) {

			@Override
			boolean reentersAs(String caller, @Nullable String holder) {
				return holder != null;
			}

		};
	}

}
