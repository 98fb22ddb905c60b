package io.github.distributedlock.redis.core;

/**
 * Plants bugs into the engine's own {@link Cohort}, through its package-private seams:
 * the cohort simulation must find them.
 */
public final class PlantedCohortBugs {

	private PlantedCohortBugs() {
	}

	/** Pass past the block Redis granted. */
	public static void passPastBlock(Cohort cohort) {
		cohort.plantedPastBlock = true;
	}

	/** Pass past the cohort's time limit. */
	public static void passPastTimeLimit(Cohort cohort) {
		cohort.plantedPastTimeLimit = true;
	}

	/** Count the lease again from each pass, as if Redis had renewed it then. */
	public static void leaseFromPass(Cohort cohort) {
		cohort.plantedLeaseFromPass = true;
	}

	/** Give every passed holder the block's first token to show, which Redis records. */
	public static void showFirstToken(Cohort cohort) {
		cohort.plantedShowsFirstToken = true;
	}

	/**
	 * Take any caller's acquisition, a previous holder's too, as the holder's re-entry.
	 */
	public static void reenterAnyCaller(Cohort cohort) {
		cohort.plantedAnyReentry = true;
	}

}
