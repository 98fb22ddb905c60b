package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link Cohort}: each of rule 4's checks on the releasing side just below, at
 * and above its bound (docs/design/cohorting.md), on a clock the test gives.
 */
class CohortTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final CohortLimits LIMITS = new CohortLimits(16, 20 * MS);

	private static final String OWNER = "instance:7";

	@Test
	void passesHandOutTheBlocksTokensInOrderAndStopWhenItIsUsed() {
		Cohort cohort = cohort(3);
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
		assertThat(cohort.pass(0, 0, "caller-2")).isEqualTo(new Cohort.Pass(Cohort.Refusal.NONE, 1_001));
		assertThat(cohort.pass(0, 0, "caller-2").token()).isEqualTo(1_002);
		assertThat(cohort.holders()).isEqualTo(3);
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.BLOCK_USED);
		assertThat(cohort.pass(0, 0, "caller-2").refusal()).isEqualTo(Cohort.Refusal.BLOCK_USED);
		assertThat(cohort.holders()).isEqualTo(3);
		assertThat(cohort(1).mayPass(0, 0)).as("a block of one").isEqualTo(Cohort.Refusal.BLOCK_USED);
	}

	@Test
	void thePassChecksAgainAtItsOwnTimeWhateverAnEarlierCheckSaid() {
		// The releasing side checked just before the limit, then paused past it.
		Cohort cohort = cohort(16);
		assertThat(cohort.mayPass(20 * MS - 1, 0)).isEqualTo(Cohort.Refusal.NONE);
		Cohort.Pass late = cohort.pass(20 * MS, 0, "caller-2");
		assertThat(late.passed()).isFalse();
		assertThat(late.refusal()).isEqualTo(Cohort.Refusal.TIME_LIMIT);
		// A loss heard between the check and the hand-over.
		Cohort lost = cohort(16);
		assertThat(lost.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
		lost.lost();
		assertThat(lost.pass(0, 0, "caller-2").refusal()).isEqualTo(Cohort.Refusal.LOSS_HEARD);
		assertThat(lost.holders()).isOne();
	}

	@Test
	void noPassAtOrAfterTheTimeLimitSinceTheOpeningWasSent() {
		Cohort cohort = cohort(16);
		assertThat(cohort.mayPass(20 * MS - 1, 0)).isEqualTo(Cohort.Refusal.NONE);
		assertThat(cohort.mayPass(20 * MS, 0)).isEqualTo(Cohort.Refusal.TIME_LIMIT);
	}

	@Test
	void noPassOnceTheSharedLeaseIsOverByTheLocalClock() {
		LeaseEnd end = new LeaseEnd(0, 10);
		Cohort cohort = new Cohort(1, OWNER, 1_000, 16, 0, 20 * MS, end);
		assertThat(cohort.mayPass(10 * MS - 1, 0)).isEqualTo(Cohort.Refusal.NONE);
		assertThat(cohort.mayPass(10 * MS, 0)).isEqualTo(Cohort.Refusal.LEASE_OVER);
		end.confirmed(5 * MS, 10);
		assertThat(cohort.mayPass(10 * MS, 0)).as("after a renewal").isEqualTo(Cohort.Refusal.NONE);
	}

	@Test
	void noPassWhileAReentryIsInFlightAndNoneAfterOneWithoutAReply() {
		Cohort cohort = cohort(16);
		assertThat(cohort.tryReenter("caller-1")).as("before anyone holds it").isFalse();
		cohort.openedBy("caller-1", "line");
		assertThat(cohort.tryReenter("caller-2")).as("not the holder").isFalse();
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
		assertThat(cohort.tryReenter("caller-1")).isTrue();
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.REENTRY_IN_FLIGHT);
		cohort.reentryEnded(true);
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
		cohort.tryReenter("caller-1");
		cohort.reentryEnded(false);
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.ENDED);
		Cohort unmatched = cohort(16);
		unmatched.reentryEnded(true);
		assertThat(unmatched.mayPass(0, 0)).as("an end with no send").isEqualTo(Cohort.Refusal.ENDED);
	}

	@Test
	void aReleaseDuringAReentryInFlightIsNotTheLastAndTheHolderStays() {
		Cohort cohort = cohort(16);
		cohort.openedBy("caller-1", "line");
		assertThat(cohort.tryReenter("caller-1")).isTrue();
		assertThat(cohort.releasing()).as("a re-entry may add a hold").isFalse();
		assertThat(cohort.isUnheld()).isFalse();
		cohort.reentered();
		assertThat(cohort.isHeldBy("caller-1")).isTrue();
		assertThat(cohort.releasing()).as("the re-entry's hold, the last").isTrue();
		Cohort failed = cohort(16);
		failed.openedBy("caller-1", "line");
		failed.tryReenter("caller-1");
		failed.releasing();
		failed.reentryEnded(true);
		assertThat(failed.isUnheld()).as("no hold left, none in flight").isTrue();
	}

	@Test
	void theHoldersLastReleaseTakesNoReentryUntilItPassesOrLeaves() {
		// A re-entry between the last release's check and its pass or release.lua would
		// add a hold to a cohort that release may end and forget.
		Cohort cohort = cohort(16);
		cohort.openedBy("caller-1", "line");
		assertThat(cohort.releasing()).as("the only hold, the last").isTrue();
		assertThat(cohort.tryReenter("caller-1")).as("a re-entry while it leaves").isFalse();
		assertThat(cohort.isHeldBy("caller-1")).isFalse();
		assertThat(cohort.pass(0, 0, "caller-2").passed()).as("the pass still goes").isTrue();
		assertThat(cohort.tryReenter("caller-2")).as("the next holder re-enters").isTrue();
	}

	@Test
	void aGrantedReentryIsOneMoreLocalHoldAndOnlyTheLastMayPass() {
		Cohort cohort = cohort(16);
		cohort.openedBy("caller-1", "line");
		cohort.tryReenter("caller-1");
		cohort.reentered();
		assertThat(cohort.mayPass(0, 0)).as("two local holds").isEqualTo(Cohort.Refusal.REENTRY_IN_FLIGHT);
		assertThat(cohort.releasing()).as("the first release").isFalse();
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
		assertThat(cohort.releasing()).as("the last").isTrue();
		assertThat(cohort.pass(0, 0, "caller-2").passed()).isTrue();
		assertThat(cohort.isHeldBy("caller-2")).isTrue();
		assertThat(cohort.tryReenter("caller-1")).as("the holder before").isFalse();
		assertThat(cohort.releasing()).as("the next holder's only hold").isTrue();
		cohort.holderLeft();
		assertThat(cohort.isHeldBy("caller-2")).isFalse();
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.ENDED);
	}

	@Test
	void noPassWhileAMinimumHoldOfTheReleasingHoldIsLeft() {
		Cohort cohort = cohort(16);
		assertThat(cohort.mayPass(0, 1)).isEqualTo(Cohort.Refusal.MINIMUM_HOLD);
		assertThat(cohort.mayPass(0, 0)).isEqualTo(Cohort.Refusal.NONE);
	}

	@Test
	void noPassAfterALossWasHeardOrTheCohortEnded() {
		Cohort lost = cohort(16);
		lost.lost();
		assertThat(lost.mayPass(0, 0)).isEqualTo(Cohort.Refusal.LOSS_HEARD);
		assertThat(lost.pass(0, 0, "caller-2").passed()).isFalse();
		Cohort ended = cohort(16);
		ended.end();
		assertThat(ended.mayPass(0, 0)).isEqualTo(Cohort.Refusal.ENDED);
		assertThat(ended.pass(0, 0, "caller-2").refusal()).isEqualTo(Cohort.Refusal.ENDED);
	}

	@Test
	void aCohortOwnerIsNoThreadsSubscriptionsOrCustomOwner() {
		LockOwners owners = new LockOwners();
		String cohort = owners.cohort(1);
		assertThat(cohort).isNotEqualTo(owners.current())
			.isNotEqualTo(owners.subscription(1))
			.isNotEqualTo(owners.cohort(2));
		assertThat(LockOwners.isCustom(cohort)).isFalse();
		assertThat(cohort).doesNotStartWith(LockOwners.custom(""));
	}

	@Test
	void limitsAreOnlyThoseABlockCanHave() {
		assertThat(CohortLimits.OFF.isOn()).isFalse();
		assertThat(new CohortLimits(16, 0).isOn()).isFalse();
		assertThat(LIMITS.isOn()).isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> new CohortLimits(0, MS));
		assertThatIllegalArgumentException().isThrownBy(() -> new CohortLimits(1_001, MS));
		assertThatIllegalArgumentException().isThrownBy(() -> new CohortLimits(16, -1));
	}

	private static Cohort cohort(int block) {
		return new Cohort(1, OWNER, 1_000, block, 0, 20 * MS, new LeaseEnd(0, 60_000));
	}

}
