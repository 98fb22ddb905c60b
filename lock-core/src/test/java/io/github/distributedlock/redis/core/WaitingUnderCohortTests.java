package io.github.distributedlock.redis.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for a head's sleep under a cohort of its JVM and the pass it takes in memory
 * ({@link Waiting#underCohort}, {@link Waiting#passed}; docs/design/cohorting.md, rules 4
 * and 5), on a virtual clock. Each bound is tried just below and at its edge.
 */
class WaitingUnderCohortTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final String COHORT_OWNER = "instance:cohort:7";

	private final long[] now = { 1_000 * MS };

	private final NanoClock clock = () -> this.now[0];

	private final WaitLine line = new WaitLine(false, false);

	private final LeaseEnd leaseEnd = new LeaseEnd(this.now[0], 30_000);

	private final Cohort cohort = new Cohort(7, COHORT_OWNER, 500, 16, this.now[0], 20 * MS, this.leaseEnd);

	@Test
	void aHeadUnderACohortSleepsUntilTheLeaseEndOrItsWaitTimeSendingNothing() {
		Waiting head = promoted(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) head.underCohort(7, this.leaseEnd.nanos());
		assertThat(sleep.nanos()).as("its wait time first").isEqualTo(5_000 * MS);
		assertThat(head.cohort()).isEqualTo(7);
		assertThat(head.acquisition().attempts()).isZero();
		Waiting longer = promoted(60_000);
		Waiting.Sleep untilLeaseEnd = (Waiting.Sleep) longer.underCohort(7, this.leaseEnd.nanos());
		assertThat(untilLeaseEnd.nanos()).as("the lease end first")
			.isEqualTo(30_000 * MS + Deadline.LEASE_END_MARGIN_NANOS);
	}

	@Test
	void theSubscriptionComingDoesNotWakeAHeadUnderACohort() {
		Waiting head = promoted(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) head.underCohort(7, this.leaseEnd.nanos());
		assertThat(head.woken(Waiting.ANY_TICKET)).isSameAs(Waiting.Next.NONE);
		Waiting.Send send = (Waiting.Send) head.woken(sleep.ticket());
		assertThat(send.attempt().request()).as("it attempts as before, filing its request").isNotNull();
		assertThat(head.cohort()).isZero();
	}

	@Test
	void onlyTheEndOfItsOwnCohortWakesItToAttempt() {
		Waiting head = promoted(5_000);
		head.underCohort(7, this.leaseEnd.nanos());
		assertThat(head.cohortEnded(6)).as("an older cohort's end").isSameAs(Waiting.Next.NONE);
		assertThat(head.cohortEnded(7)).isInstanceOf(Waiting.Send.class);
		assertThat(head.cohortEnded(7)).as("awake now").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aMessageEndsTheSleepUnderTheCohort() {
		Waiting head = promoted(5_000);
		head.underCohort(7, this.leaseEnd.nanos());
		this.line.signal(true);
		assertThat(head.signalled()).isInstanceOf(Waiting.Send.class);
		assertThat(head.passed(this.cohort, opening(), 0)).isSameAs(Waiting.Next.NONE);
		assertThat(this.cohort.holders()).isOne();
	}

	@Test
	void aHeadThatSentItsRequestIsNotUnderTheCohortAndTakesNoPass() {
		Waiting head = promoted(5_000);
		Waiting.Send send = (Waiting.Send) head.woken(Waiting.ANY_TICKET);
		Waiting.Sleep sleep = (Waiting.Sleep) head.replied(send.attempt(), new AcquireResult(0, 3, 500, -1));
		assertThat(head.underCohort(7, this.leaseEnd.nanos())).isSameAs(Waiting.Next.NONE);
		assertThat(head.passed(this.cohort, opening(), 0)).isSameAs(Waiting.Next.NONE);
		assertThat(head.woken(sleep.ticket())).as("its own sleep still runs").isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadWithACustomOwnerOrAHoldOfItsOwnIsNotUnderTheCohort() {
		Waiting custom = new Waiting(new Acquisition(spec(5_000, 30_000), LockOwners.custom("shared"), false,
				this.clock, UniqueIds.ofProcess()), true);
		custom.joined(this.line, true);
		assertThat(custom.underCohort(7, this.leaseEnd.nanos())).isSameAs(Waiting.Next.NONE);
		Waiting holding = new Waiting(
				new Acquisition(spec(5_000, 30_000), "owner-1", true, this.clock, UniqueIds.ofProcess()), true);
		holding.joined(new WaitLine(false, false), true);
		assertThat(holding.underCohort(7, this.leaseEnd.nanos())).isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aWaiterBehindTheHeadIsNotUnderTheCohort() {
		Waiting behind = new Waiting(
				new Acquisition(spec(5_000, 30_000), "owner-2", false, this.clock, UniqueIds.ofProcess()), true);
		behind.joined(this.line, false);
		assertThat(behind.underCohort(7, this.leaseEnd.nanos())).isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aPassGrantsTheRedisHoldWithTheBlocksNextTokenAndTheSharedLeaseEnd() {
		Waiting head = promoted(5_000);
		head.underCohort(7, this.leaseEnd.nanos());
		advance(3);
		Grant grant = ((Waiting.Hold) head.passed(this.cohort, opening(), 0)).grant();
		assertThat(grant.owner()).isEqualTo(COHORT_OWNER);
		assertThat(grant.cohort()).isSameAs(this.cohort);
		assertThat(grant.hold()).isEqualTo("hold-1");
		assertThat(grant.token()).as("what Redis records").isEqualTo(500);
		assertThat(grant.shownToken()).isEqualTo(501);
		assertThat(grant.sentNanos() + 30_000 * MS).as("the lease end as is").isEqualTo(this.leaseEnd.nanos());
		assertThat(grant.waited()).isTrue();
		assertThat(grant.waitedFor()).isEqualTo(Duration.ofMillis(3));
		assertThat(this.cohort.holders()).isEqualTo(2);
		assertThat(head.cohort()).isZero();
		assertThat(head.passed(this.cohort, opening(), 0)).as("taken once").isSameAs(Waiting.Next.NONE);
		assertThat(this.cohort.holders()).isEqualTo(2);
	}

	@Test
	void aPassFromAnotherCohortOrOwnerIsRefused() {
		Waiting head = promoted(5_000);
		head.underCohort(7, this.leaseEnd.nanos());
		Cohort other = new Cohort(8, COHORT_OWNER, 500, 16, this.now[0], 20 * MS, this.leaseEnd);
		assertThat(head.passed(other, opening(), 0)).isSameAs(Waiting.Next.NONE);
		Grant mine = new Grant(spec(5_000, 30_000), "owner-9", 500, "hold-1", this.now[0], false, Duration.ZERO, 1);
		assertThat(head.passed(this.cohort, mine, 0)).isSameAs(Waiting.Next.NONE);
		assertThat(this.cohort.holders()).isOne();
	}

	@Test
	void aPassForAnotherLeaseOrWatchdogIsRefused() {
		Waiting head = promoted(5_000);
		head.underCohort(7, this.leaseEnd.nanos());
		Grant shorter = new Grant(spec(5_000, 29_999), COHORT_OWNER, 500, "hold-1", this.now[0], false, Duration.ZERO,
				1);
		assertThat(head.passed(this.cohort, shorter, 0)).isSameAs(Waiting.Next.NONE);
		LockSpec renewed = spec(LockKind.EXCLUSIVE, true, 5_000, 30_000);
		Grant watched = new Grant(renewed, COHORT_OWNER, 500, "hold-1", this.now[0], false, Duration.ZERO, 1);
		assertThat(head.passed(this.cohort, watched, 0)).isSameAs(Waiting.Next.NONE);
		LockSpec fair = spec(LockKind.FAIR, false, 5_000, 30_000);
		Grant fairGrant = new Grant(fair, COHORT_OWNER, 500, "hold-1", this.now[0], false, Duration.ZERO, 1);
		assertThat(head.passed(this.cohort, fairGrant, 0)).as("another kind").isSameAs(Waiting.Next.NONE);
		assertThat(head.passed(this.cohort, opening(), 0)).isInstanceOf(Waiting.Hold.class);
	}

	@Test
	void aPassIsTakenOnlyWithinTheWaitTime() {
		Waiting head = promoted(10);
		head.underCohort(7, this.leaseEnd.nanos());
		Waiting late = promoted(10);
		late.underCohort(7, this.leaseEnd.nanos());
		this.now[0] += 10 * MS - 1;
		assertThat(head.passed(this.cohort, opening(), 0)).as("a nanosecond before its end")
			.isInstanceOf(Waiting.Hold.class);
		this.now[0] += 1;
		assertThat(late.passed(this.cohort, opening(), 0)).as("at its end").isSameAs(Waiting.Next.NONE);
		assertThat(this.cohort.holders()).isEqualTo(2);
	}

	@Test
	void aPassIsTakenOnlyWhileTheLeaseEndLastsByTheClockReadAtTheHandOver() {
		LeaseEnd shortEnd = new LeaseEnd(this.now[0], 60);
		Cohort brief = new Cohort(7, COHORT_OWNER, 500, 16, this.now[0], 20 * MS, shortEnd);
		Waiting head = promoted(5_000, 60);
		head.underCohort(7, shortEnd.nanos());
		this.now[0] = shortEnd.nanos() - 1;
		Grant opening = new Grant(spec(5_000, 60), COHORT_OWNER, 500, "hold-1", this.now[0], false, Duration.ZERO, 1);
		assertThat(head.passed(brief, opening, 0)).as("the time limit passed first").isSameAs(Waiting.Next.NONE);
		Cohort lax = new Cohort(7, COHORT_OWNER, 500, 16, this.now[0], 20 * MS, shortEnd);
		assertThat(head.passed(lax, opening, 0)).as("a nanosecond before the end").isInstanceOf(Waiting.Hold.class);
		Waiting late = promoted(5_000, 60);
		late.underCohort(7, shortEnd.nanos());
		this.now[0] = shortEnd.nanos();
		Cohort fresh = new Cohort(7, COHORT_OWNER, 500, 16, this.now[0], 20 * MS, shortEnd);
		assertThat(late.passed(fresh, opening, 0)).as("at the end").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void theCohortsOwnChecksRunWithTheSameClockReading() {
		Waiting head = promoted(60_000);
		head.underCohort(7, this.leaseEnd.nanos());
		advance(20);
		assertThat(head.passed(this.cohort, opening(), 0)).as("at the time limit").isSameAs(Waiting.Next.NONE);
		assertThat(head.cohort()).as("still under it, for its end").isEqualTo(7);
		assertThat(head.passed(new Cohort(7, COHORT_OWNER, 500, 16, this.now[0], 20 * MS, this.leaseEnd), opening(), 1))
			.as("a minimum hold left")
			.isSameAs(Waiting.Next.NONE);
	}

	private Grant opening() {
		return new Grant(spec(5_000, 30_000), COHORT_OWNER, 500, "hold-1", this.now[0], true, Duration.ZERO, 2);
	}

	private Waiting promoted(long waitMillis) {
		return promoted(waitMillis, 30_000);
	}

	private Waiting promoted(long waitMillis, long leaseMillis) {
		Waiting waiting = new Waiting(
				new Acquisition(spec(waitMillis, leaseMillis), "owner-1", false, this.clock, UniqueIds.ofProcess()),
				true);
		waiting.joined(this.line, true);
		return waiting;
	}

	private void advance(long millis) {
		this.now[0] += millis * MS;
	}

	private static LockSpec spec(long waitMillis, long leaseMillis) {
		return spec(LockKind.EXCLUSIVE, false, waitMillis, leaseMillis);
	}

	private static LockSpec spec(LockKind kind, boolean autoRenew, long waitMillis, long leaseMillis) {
		return new LockSpec(LockName.of("orders", "42"), "p:{orders:42}", "p:{orders:42}:released", kind, 0, "q",
				leaseMillis, waitMillis * MS, false, autoRenew, 0, 5_000,
				new WaitMode(WaitStrategy.PUBSUB, List.of("p:{orders:42}:released"), 100 * MS), true, null);
	}

}
