package io.github.distributedlock.redis.driver;

/**
 * Plants bugs into the engine's own {@link LockHold}, through its one package-private
 * seam, where no port can: the simulation must find them as it finds bugs planted into
 * scripts.
 */
public final class PlantedHoldBugs {

	private PlantedHoldBugs() {
	}

	/**
	 * Make the hold count each confirmed renewal's or extension's lease from when its
	 * reply was read, not from when it was sent: a reply read late puts its deadline past
	 * the lease Redis keeps.
	 */
	public static void countLeasesFromReplies(LockHold hold) {
		hold.leaseFromReply = true;
	}

	/**
	 * Make the hold's release send the token its handle shows, not the one Redis records
	 * (docs/design/cohorting.md, rule 3): a passed holder's release is refused, and the
	 * hold is left to nobody until its lease ends.
	 */
	public static void releaseShownToken(LockHold hold) {
		hold.releasesShownToken = true;
	}

}
