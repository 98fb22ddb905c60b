package io.github.distributedlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Acquisition}: each decision of one acquisition, on a virtual clock,
 * with no Redis (the engines' tests run the same decisions against real servers).
 */
class AcquisitionTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private final long[] now = { 1_000 * MS };

	private final NanoClock clock = () -> this.now[0];

	@Test
	void everyAttemptCarriesTheSameHoldAndTheWaitTimeLeft() {
		Acquisition acquisition = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt first = acquisition.next(null);
		advance(1_200);
		Acquisition.Attempt second = acquisition.next(null);
		assertThat(first.hold()).isNotEmpty().isEqualTo(second.hold()).isEqualTo(acquisition.hold());
		assertThat(first.sentNanos()).isEqualTo(1_000 * MS);
		assertThat(first.remainingWaitMillis()).isEqualTo(5_000);
		assertThat(second.remainingWaitMillis()).isEqualTo(3_800);
		assertThat(first.request()).isNull();
		assertThat(first.mayHaveIntent()).isFalse();
	}

	@Test
	void aGrantCountsItsLeaseFromBeforeTheAttemptWasSent() {
		Acquisition acquisition = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt attempt = acquisition.next(null);
		advance(40);
		AttemptOutcome outcome = acquisition.replied(attempt, new AcquireResult(1, 7, -1, -1), false);
		assertThat(outcome).isInstanceOf(AttemptOutcome.Held.class);
		Grant grant = ((AttemptOutcome.Held) outcome).grant();
		assertThat(grant.sentNanos()).isEqualTo(1_000 * MS);
		assertThat(grant.token()).isEqualTo(7);
		assertThat(grant.hold()).isEqualTo(attempt.hold());
		assertThat(grant.waited()).isFalse();
	}

	@Test
	void aGrantAfterTheFirstAttemptOrAfterATurnHasWaited() {
		Acquisition acquisition = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt first = acquisition.next(null);
		assertThat(acquisition.replied(first, taken(3, 500), false)).isSameAs(AttemptOutcome.WAIT);
		Acquisition.Attempt second = acquisition.next(null);
		Grant grant = ((AttemptOutcome.Held) acquisition.replied(second, new AcquireResult(1, 4, -1, -1), false))
			.grant();
		assertThat(grant.waited()).isTrue();
		assertThat(grant.attempts()).isEqualTo(2);
		Acquisition other = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt only = other.next(null);
		assertThat(((AttemptOutcome.Held) other.replied(only, new AcquireResult(1, 5, -1, -1), true)).grant().waited())
			.isTrue();
	}

	@Test
	void aGrantThatComesAfterItsLeaseEndedIsNoHoldAndIsTriedAgainWhileWaitTimeIsLeft() {
		Acquisition acquisition = acquisition(spec(60_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt late = acquisition.next(null);
		advance(30_000);
		AttemptOutcome outcome = acquisition.replied(late, new AcquireResult(1, 7, -1, -1), false);
		assertThat(outcome).isInstanceOf(AttemptOutcome.Late.class);
		assertThat(((AttemptOutcome.Late) outcome).grant().hold()).isEqualTo(late.hold());
		assertThat(acquisition.retriesLateGrant()).isTrue();
		Acquisition.Attempt again = acquisition.next(null);
		assertThat(again.hold()).isEqualTo(late.hold());
		advance(29_999);
		assertThat(acquisition.replied(again, new AcquireResult(1, 7, -1, -1), false))
			.isInstanceOf(AttemptOutcome.Held.class);
		Acquisition over = acquisition(spec(1_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt last = over.next(null);
		advance(30_000);
		assertThat(over.replied(last, new AcquireResult(1, 8, -1, -1), false)).isInstanceOf(AttemptOutcome.Late.class);
		assertThat(over.retriesLateGrant()).isFalse();
	}

	@Test
	void aTryOnceGrantedTooLateConfirmsItOnce() {
		Acquisition once = acquisition(spec(0, false, WaitStrategy.PUBSUB));
		once.replied(once.next(null), new AcquireResult(1, 8, -1, -1), false);
		advance(30_000);
		assertThat(once.retriesLateGrant()).isFalse();
		Acquisition late = acquisition(spec(0, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt first = late.next(null);
		advance(30_000);
		assertThat(late.replied(first, new AcquireResult(1, 8, -1, -1), false)).isInstanceOf(AttemptOutcome.Late.class);
		assertThat(late.retriesLateGrant()).isTrue();
		Acquisition.Attempt second = late.next(null);
		advance(30_000);
		assertThat(late.replied(second, new AcquireResult(1, 8, -1, -1), false))
			.isInstanceOf(AttemptOutcome.Late.class);
		assertThat(late.retriesLateGrant()).isFalse();
	}

	/**
	 * A wait that ends on grants each read after its lease (30 s here) ended says so: the
	 * lease is shorter than a round trip, not that a holder kept the lock.
	 */
	@Test
	void aWaitThatEndsOnGrantsTooLateSaysTheLeaseIsShorterThanARoundTrip() {
		Acquisition acquisition = acquisition(spec(50_000 * MS, false, WaitStrategy.PUBSUB));
		for (int i = 0; i < 2; i++) {
			Acquisition.Attempt attempt = acquisition.next(null);
			advance(30_001);
			assertThat(acquisition.replied(attempt, new AcquireResult(1, 7, -1, -1), false))
				.isInstanceOf(AttemptOutcome.Late.class);
		}
		assertThat(acquisition.retriesLateGrant()).isFalse();
		LockTimeoutException timeout = acquisition.timeout(null);
		assertThat(timeout).hasMessageContaining("not acquired after waiting 60 s")
			.hasMessageContaining("Redis granted it 2 times in a row")
			.hasMessageContaining("after its lease of 30000 ms had ended (the last took 30001 ms)")
			.hasMessageContaining("lease longer than a round trip");
		assertThat(timeout.getHolderRemainingLease()).isNull();
	}

	/**
	 * One grant too late ends a wait whose time ran out meanwhile: a stall may explain
	 * it, so the timeout gives its round trip and no advice.
	 */
	@Test
	void aWaitThatEndsOnOneGrantTooLateGivesItsRoundTrip() {
		Acquisition acquisition = acquisition(spec(1_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt attempt = acquisition.next(null);
		advance(30_500);
		assertThat(acquisition.replied(attempt, new AcquireResult(1, 7, -1, -1), false))
			.isInstanceOf(AttemptOutcome.Late.class);
		assertThat(acquisition.retriesLateGrant()).isFalse();
		assertThat(acquisition.timeout(null)).hasMessageEndingWith(
				"; Redis granted it, but the reply came after its lease of 30000 ms had ended " + "(it took 30500 ms)");
	}

	/**
	 * A grant too late, then a reply that another holds the lock: the wait that ends then
	 * names the holder, as any other.
	 */
	@Test
	void aWaitThatEndsOnTheLockTakenAfterALateGrantNamesTheHolder() {
		Acquisition acquisition = acquisition(spec(50_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt late = acquisition.next(null);
		advance(30_001);
		assertThat(acquisition.replied(late, new AcquireResult(1, 7, -1, -1), false))
			.isInstanceOf(AttemptOutcome.Late.class);
		Acquisition.Attempt refused = acquisition.next(null);
		advance(30_000);
		acquisition.replied(refused, taken(8, 1_500), false);
		LockTimeoutException timeout = acquisition.timeout(null);
		assertThat(timeout).hasMessageContaining("the holder's lease had about").hasMessageNotContaining("granted");
		assertThat(timeout.getHolderRemainingLease()).isNotNull();
	}

	@Test
	void aTryOnceThatFindsTheLockTakenIsOverAndTimesOutWithTheHoldersLease() {
		Acquisition acquisition = acquisition(spec(0, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt attempt = acquisition.next(null);
		assertThat(acquisition.replied(attempt, taken(3, 1_500), false)).isSameAs(AttemptOutcome.OVER);
		LockTimeoutException timeout = acquisition.timeout(null);
		assertThat(timeout.getHolderRemainingLease()).hasMillis(1_500);
		advance(500);
		assertThat(acquisition.timeout(null).getHolderRemainingLease()).hasMillis(1_000);
	}

	@Test
	void aTakenOwnerIsCarriedFromTheNextAttemptOnAndNamesTheGrant() {
		Acquisition acquisition = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt first = acquisition.next(null);
		assertThat(first.owner()).isEqualTo("owner-1");
		assertThat(first.block()).as("one token before").isOne();
		acquisition.replied(first, taken(3, 500), false);
		assertThat(acquisition.takeOwner("instance:cohort:1", 16)).isTrue();
		assertThat(acquisition.owner()).isEqualTo("instance:cohort:1");
		assertThat(acquisition.takeOwner("instance:cohort:2", 16)).as("a second owner").isFalse();
		Acquisition.Attempt second = acquisition.next(null);
		assertThat(second.owner()).isEqualTo("instance:cohort:1");
		assertThat(second.hold()).isEqualTo(first.hold());
		assertThat(second.block()).as("the block after").isEqualTo(16);
		Grant grant = ((AttemptOutcome.Held) acquisition.replied(second, new AcquireResult(1, 4, -1, -1), false))
			.grant();
		assertThat(grant.owner()).isEqualTo("instance:cohort:1");
	}

	@Test
	void anOwnerIsTakenOnlyWhenNothingCanBeInRedisInTheOldOnesName() {
		// An attempt without its reply yet may have taken the lock.
		Acquisition unanswered = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		unanswered.next(null);
		assertThat(unanswered.takeOwner("instance:cohort:1", 16)).isFalse();
		assertThat(unanswered.owner()).isEqualTo("owner-1");
		// A grant that came after its lease ended: its hold may still be in Redis.
		Acquisition late = acquisition(spec(60_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt attempt = late.next(null);
		advance(30_000);
		late.replied(attempt, new AcquireResult(1, 7, -1, -1), false);
		assertThat(late.takeOwner("instance:cohort:1", 16)).isFalse();
		// Held back by readers: it may have set a writer intent in its name.
		Acquisition writer = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		writer.replied(writer.next(null), taken(0, 800), false);
		assertThat(writer.takeOwner("instance:cohort:1", 16)).isFalse();
		// A re-entry: the owner holds the lock.
		Acquisition reentry = new Acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB), "owner-1", true, this.clock,
				UniqueIds.ofProcess());
		reentry.replied(reentry.next(null), taken(3, 500), false);
		assertThat(reentry.takeOwner("instance:cohort:1", 16)).isFalse();
		// Before any attempt, and after refusals only: nothing in its name.
		assertThat(acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB)).takeOwner("instance:cohort:1", 16))
			.isTrue();
	}

	@Test
	void findingItsOwnHoldWithoutReentryIsASelfDeadlock() {
		Acquisition acquisition = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt attempt = acquisition.next(null);
		AttemptOutcome outcome = acquisition.replied(attempt, new AcquireResult(-1, 3, 900, -1), false);
		assertThat(((AttemptOutcome.Failed) outcome).error()).isInstanceOf(LockSelfDeadlockException.class);
	}

	@Test
	void aWriterHeldBackByReadersSaysItMayHaveLeftAnIntentAndDropsItWhenItGivesUp() {
		Acquisition acquisition = acquisition(spec(5_000 * MS, false, WaitStrategy.PUBSUB));
		Acquisition.Attempt first = acquisition.next(null);
		acquisition.replied(first, taken(0, 800), false);
		assertThat(acquisition.next(null).mayHaveIntent()).isTrue();
		assertThat(acquisition.end(false).dropIntent()).isTrue();
		assertThat(acquisition.end(true).dropIntent()).isFalse();
	}

	@Test
	void aProgressAwareWaitStartsAgainWhenTheHolderChanges() {
		Acquisition acquisition = acquisition(spec(1_000 * MS, true, WaitStrategy.PUBSUB));
		acquisition.replied(acquisition.next(null), taken(3, 5_000), false);
		advance(800);
		acquisition.replied(acquisition.next(null), taken(3, 5_000), false);
		assertThat(acquisition.deadline().remainingNanos()).isEqualTo(200 * MS);
		acquisition.replied(acquisition.next(null), taken(4, 5_000), false);
		assertThat(acquisition.deadline().remainingNanos()).isEqualTo(1_000 * MS);
		assertThat(acquisition.lastHandOffNanos()).isEqualTo(1_800 * MS);
	}

	@Test
	void anAttemptAtTheDeadlineSaysItWaitsAsAChangeOfHoldersMayKeepItWaiting() {
		Acquisition acquisition = acquisition(spec(1_000 * MS, true, WaitStrategy.PUBSUB));
		acquisition.replied(acquisition.next(null), taken(3, 5_000), false);
		advance(1_000);
		Acquisition.Attempt atDeadline = acquisition.next(null);
		// Not 0: acquire.lua marks no lock for a try, and this waiter may wait on.
		assertThat(atDeadline.remainingWaitMillis()).isEqualTo(1);
		assertThat(acquisition.replied(atDeadline, taken(4, 5_000), false)).isSameAs(AttemptOutcome.WAIT);
		assertThat(acquisition.deadline().remainingNanos()).as("waits on").isEqualTo(1_000 * MS);
	}

	@Test
	void aWaitThatIsNotProgressAwareKeepsItsDeadlineWhenTheHolderChanges() {
		Acquisition acquisition = acquisition(spec(1_000 * MS, false, WaitStrategy.PUBSUB));
		acquisition.replied(acquisition.next(null), taken(3, 5_000), false);
		advance(800);
		acquisition.replied(acquisition.next(null), taken(4, 5_000), false);
		assertThat(acquisition.deadline().remainingNanos()).isEqualTo(200 * MS);
		assertThat(acquisition.restartOnProgress(this.now[0])).isFalse();
	}

	@Test
	void theHeadSleepsAtMostUntilTheHoldersLeaseEnds() {
		Acquisition acquisition = acquisition(spec(10_000 * MS, false, WaitStrategy.PUBSUB));
		acquisition.replied(acquisition.next(null), taken(3, 300), false);
		assertThat(acquisition.sleepNanos()).isEqualTo(300 * MS + Deadline.LEASE_END_MARGIN_NANOS);
		advance(100);
		assertThat(acquisition.sleepNanos()).isEqualTo(200 * MS + Deadline.LEASE_END_MARGIN_NANOS);
	}

	@Test
	void theHeadSleepsAtMostUntilTheWaitTimeRunsOut() {
		Acquisition acquisition = acquisition(spec(250 * MS, false, WaitStrategy.PUBSUB));
		acquisition.replied(acquisition.next(null), taken(3, 30_000), false);
		assertThat(acquisition.sleepNanos()).isEqualTo(250 * MS);
	}

	@Test
	void aPollerSleepsAtMostItsPollInterval() {
		Acquisition acquisition = acquisition(spec(10_000 * MS, false, WaitStrategy.POLLING));
		acquisition.replied(acquisition.next(null), taken(3, 5_000), false);
		assertThat(acquisition.sleepNanos()).isEqualTo(100 * MS);
	}

	@Test
	void aWaiterThatFiledARequestTriesAgainWithinHalfItsClaim() {
		// So that a reservation whose message was lost is taken before its claim lapses
		// (LostReservationMessageTests), and the request is filed again long before it
		// lapses.
		Acquisition acquisition = acquisition(spec(-1, false, WaitStrategy.PUBSUB));
		HandOffRequest request = acquisition.fileRequest();
		Acquisition.Attempt attempt = acquisition.next(null);
		assertThat(attempt.request()).isSameAs(request);
		acquisition.replied(attempt, taken(3, -1), false);
		advance(400);
		assertThat(acquisition.sleepNanos()).isEqualTo(HandOffRequest.CLAIM_MILLIS / 2 * MS - 400 * MS);
	}

	@Test
	void aPollerThatFiledARequestTriesAgainWithinHalfItsLongerClaim() {
		// A poller's claim is three polls: its poll interval bounds its sleep first.
		Acquisition acquisition = acquisition(spec(-1, false, WaitStrategy.POLLING));
		HandOffRequest request = acquisition.fileRequest();
		assertThat(request.retryNanos()).isEqualTo(HandOffRequest.CLAIM_MILLIS / 2 * MS);
		acquisition.replied(acquisition.next(null), taken(3, 60_000), false);
		assertThat(acquisition.sleepNanos()).isEqualTo(100 * MS);
		assertThat(HandOffRequest.of(1_000 * MS, UniqueIds.ofProcess()).retryNanos()).isEqualTo(1_500 * MS);
	}

	@Test
	void anIndefiniteWaitForALeaseWithoutExpiryStillWakesUp() {
		Acquisition acquisition = acquisition(spec(-1, false, WaitStrategy.PUBSUB));
		acquisition.replied(acquisition.next(null), taken(3, -1), false);
		assertThat(acquisition.sleepNanos()).isEqualTo(Acquisition.MAX_SLEEP_NANOS);
	}

	@Test
	void theHeadSleepsUntilAMessageCallsForAnotherAttempt() {
		Acquisition acquisition = acquisition(spec(10_000 * MS, false, WaitStrategy.PUBSUB));
		WaitLine line = line();
		acquisition.replied(acquisition.next(line), taken(3, 5_000), false);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.SLEEP);
		released(line);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.TRY);
	}

	@Test
	void aReservationForSomeoneElseIsAHintThatNeverLengthensTheSleep() {
		Acquisition acquisition = acquisition(spec(10_000 * MS, false, WaitStrategy.PUBSUB));
		WaitLine line = line();
		acquisition.replied(acquisition.next(line), taken(3, 5_000), false);
		reserved(line, 2_000);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.SLEEP);
		assertThat(acquisition.sleepNanos()).isEqualTo(2_000 * MS + Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(acquisition.seenSignals()).isEqualTo(line.signals());
		reserved(line, 9_000);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.SLEEP);
		assertThat(acquisition.sleepNanos()).isEqualTo(2_000 * MS + Deadline.LEASE_END_MARGIN_NANOS);
	}

	@Test
	void aCallToTryThatLandsWithAReservationIsNotMissed() {
		Acquisition acquisition = acquisition(spec(10_000 * MS, false, WaitStrategy.PUBSUB));
		WaitLine line = line();
		acquisition.replied(acquisition.next(line), taken(3, 5_000), false);
		reserved(line, 2_000);
		released(line);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.TRY);
	}

	@Test
	void anyWakeUpLeadsToAnAttemptWhenTheRetryCountIsUnknown() {
		Acquisition acquisition = acquisition(spec(10_000 * MS, false, WaitStrategy.PUBSUB));
		WaitLine line = line();
		acquisition.replied(acquisition.next(null), taken(3, 5_000), false);
		reserved(line, 2_000);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.TRY);
	}

	@Test
	void theHeadGivesUpOnceTheWaitTimeIsOverUnlessTheLockChangedHands() {
		Acquisition acquisition = acquisition(spec(1_000 * MS, true, WaitStrategy.PUBSUB));
		WaitLine line = line();
		acquisition.replied(acquisition.next(line), taken(3, 5_000), false);
		advance(1_000);
		line.markProgress(this.now[0] - 10 * MS);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.SLEEP);
		assertThat(acquisition.deadline().remainingNanos()).isEqualTo(990 * MS);
		advance(990);
		assertThat(acquisition.whileHead(line)).isEqualTo(HeadStep.GIVE_UP);
	}

	@Test
	void anEndWithoutTheLockWithdrawsOnlyAFiledRequest() {
		Acquisition unfiled = acquisition(spec(1_000 * MS, false, WaitStrategy.PUBSUB));
		HandOffRequest request = unfiled.fileRequest();
		WaitEnding ending = unfiled.end(false);
		assertThat(ending.forget()).isSameAs(request);
		assertThat(ending.withdraw()).isFalse();
		Acquisition filed = acquisition(spec(1_000 * MS, false, WaitStrategy.PUBSUB));
		HandOffRequest carried = filed.fileRequest();
		filed.next(null);
		WaitEnding withdrawn = filed.end(false);
		assertThat(withdrawn.withdraw()).isTrue();
		assertThat(withdrawn.forget()).isSameAs(carried);
		Acquisition won = acquisition(spec(1_000 * MS, false, WaitStrategy.PUBSUB));
		won.fileRequest();
		won.next(null);
		assertThat(won.end(true).withdraw()).isFalse();
		assertThat(won.request()).isNull();
	}

	@Test
	void aSlowPollersRequestLastsForThreeOfItsPolls() {
		LockSpec polling = spec(1_000 * MS, false, WaitStrategy.POLLING);
		LockSpec slow = spec(1_000 * MS, false, new WaitMode(WaitStrategy.POLLING, List.of("p"), 1_000 * MS));
		assertThat(HandOffRequest.claimMillis(acquisition(slow).fileRequest().member())).isEqualTo(3_000);
		assertThat(HandOffRequest.claimMillis(acquisition(polling).fileRequest().member()))
			.isEqualTo(HandOffRequest.CLAIM_MILLIS);
		LockSpec listening = spec(1_000 * MS, false, WaitStrategy.PUBSUB);
		assertThat(HandOffRequest.claimMillis(acquisition(listening).fileRequest().member()))
			.isEqualTo(HandOffRequest.CLAIM_MILLIS);
	}

	@Test
	void aLineKeepsTheLatestChangeOfHands() {
		WaitLine line = new WaitLine(false, false);
		long later = Long.MAX_VALUE - 5;
		long wrapped = later + 10;
		for (long nanos : new long[] { later, later - 1_000, wrapped, later }) {
			line.markProgress(nanos);
		}
		assertThat(line.lastProgressNanos()).isEqualTo(wrapped);
	}

	private void advance(long millis) {
		this.now[0] += millis * MS;
	}

	private Acquisition acquisition(LockSpec spec) {
		return new Acquisition(spec, "owner-1", false, this.clock, UniqueIds.ofProcess());
	}

	private static AcquireResult taken(long token, long holderTtlMillis) {
		return new AcquireResult(0, token, holderTtlMillis, -1);
	}

	private static LockSpec spec(long waitNanos, boolean progressAware, WaitStrategy strategy) {
		return spec(waitNanos, progressAware, new WaitMode(strategy, List.of("p:{orders:42}:released"), 100 * MS));
	}

	private static LockSpec spec(long waitNanos, boolean progressAware, WaitMode waitMode) {
		return new LockSpec(LockName.of("orders", "42"), "p:{orders:42}", "p:{orders:42}:released", LockKind.EXCLUSIVE,
				0, "q", 30_000, waitNanos, progressAware, false, 0, 5_000, waitMode, true, null);
	}

	private static WaitLine line() {
		return new WaitLine(false, false);
	}

	/**
	 * Let the line hear a plain release, as an engine's line does.
	 */
	private void released(WaitLine line) {
		hear(line, "41");
	}

	/**
	 * Let the line hear a reservation for a request of another process.
	 */
	private void reserved(WaitLine line, long claimMillis) {
		hear(line, "reserved:" + claimMillis + ":elsewhere");
	}

	private void hear(WaitLine line, String body) {
		WaitLine.Heard heard = line.hear(ReleaseMessage.parse(body.getBytes(StandardCharsets.UTF_8)), this.now[0]);
		if (heard != WaitLine.Heard.NOTHING) {
			line.signal(heard == WaitLine.Heard.TRY);
		}
	}

}
