package io.github.distributedlock.redis.driver;

import io.github.distributedlock.redis.core.Grant;

/**
 * Makes the engine's own {@link LockHold} with one bug planted, in a subclass that breaks
 * one of its rules, where no port can: the simulation must find them as it finds bugs
 * planted into scripts.
 */
public final class PlantedHoldBugs {

	private PlantedHoldBugs() {
	}

	/**
	 * A hold that counts each confirmed renewal's or extension's lease from when its
	 * reply was read, not from when it was sent: a reply read late puts its deadline past
	 * the lease Redis keeps.
	 */
	public static LockHold countingLeasesFromReplies(Grant grant, long grantedNanos, boolean handOff,
			LockHold.Events events, CohortRelease cohorts) {
		return new LockHold(grant, grantedNanos, handOff, events, cohorts) {

			@Override
			long confirmedFrom(long sentNanos, long repliedNanos) {
				return repliedNanos;
			}

		};
	}

	/**
	 * A hold whose release sends the token its handle shows, not the one Redis records
	 * (docs/design/cohorting.md, rule 3): a passed holder's release is refused, and the
	 * hold is left to nobody until its lease ends.
	 */
	public static LockHold releasingShownToken(Grant grant, long grantedNanos, boolean handOff, LockHold.Events events,
			CohortRelease cohorts) {
		return new LockHold(grant, grantedNanos, handOff, events, cohorts) {

			@Override
			long releasedToken() {
				return grant().shownToken();
			}

		};
	}

}
