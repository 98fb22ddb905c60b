package io.github.distributedlock.redis.core;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Waiting}: each step of one acquisition's wait, on a virtual clock,
 * with no Redis, no line of threads and no timers (the reactive engine's tests and the
 * simulation run the same steps against real servers and the model).
 */
class WaitingTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private final long[] now = { 1_000 * MS };

	private final NanoClock clock = () -> this.now[0];

	private final WaitLine line = new WaitLine(false, false);

	@Test
	void aColdLockIsTriedOnceOutsideTheLineWithoutARequest() {
		Waiting waiting = waiting(5_000);
		Waiting.Send first = (Waiting.Send) waiting.begin(false);
		assertThat(first.attempt().request()).isNull();
		assertThat(first.late()).isNull();
		assertThat(waiting.isHead()).isFalse();
		assertThat(waiting.replied(first.attempt(), taken(3, 500))).isSameAs(Waiting.Next.JOIN_LINE);
	}

	@Test
	void aHotLockIsJoinedAtOnceAndTheHeadFilesItsRequestWithItsFirstAttempt() {
		Waiting waiting = waiting(5_000);
		assertThat(waiting.begin(true)).isSameAs(Waiting.Next.JOIN_LINE);
		waiting.joined(this.line, true);
		assertThat(waiting.isHead()).isTrue();
		Waiting.Send first = (Waiting.Send) waiting.woken(Waiting.ANY_TICKET);
		assertThat(first.attempt().request()).isNotNull();
	}

	@Test
	void aReentryNeverJoinsAtOnce() {
		Waiting waiting = new Waiting(new Acquisition(spec(5_000), "owner-1", true, this.clock, UniqueIds.ofProcess()),
				true);
		assertThat(waiting.begin(true)).isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadWaitingForItsSubscriptionSleepsUntilWokenByAnyTicket() {
		Waiting waiting = waiting(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.joined(this.line, true);
		assertThat(sleep.nanos()).isPositive();
		assertThat(waiting.woken(Waiting.ANY_TICKET)).isInstanceOf(Waiting.Send.class);
		assertThat(waiting.woken(Waiting.ANY_TICKET)).as("a second wake-up").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aWaiterBehindTheHeadWaitsForItsTurnUntilItsWaitTimeRunsOut() {
		Waiting waiting = waiting(5_000);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) waiting.joined(this.line, false);
		assertThat(turn.nanos()).isEqualTo(5_000 * MS);
		advance(5_000);
		assertThat(waiting.turnTimedOut(turn.ticket() - 1)).as("an older timer").isSameAs(Waiting.Next.NONE);
		assertThat(waiting.turnTimedOut(turn.ticket())).as("queued").isEqualTo(new Waiting.GiveUp(null));
		assertThat(waiting.turnTimedOut(turn.ticket())).as("no longer queued").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aProgressAwareWaiterWaitsOnForItsTurnWhenTheLockChangedHands() {
		Waiting waiting = new Waiting(
				new Acquisition(spec(5_000, true), "owner-1", false, this.clock, UniqueIds.ofProcess()), true);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) waiting.joined(this.line, false);
		advance(4_000);
		this.line.markProgress(this.now[0]);
		advance(1_000);
		Waiting.AwaitTurn again = (Waiting.AwaitTurn) waiting.turnTimedOut(turn.ticket());
		assertThat(again.nanos()).isEqualTo(4_000 * MS);
		assertThat(again.ticket()).isNotEqualTo(turn.ticket());
	}

	@Test
	void aPromotedWaiterFilesItsRequestAndTriesAtOnce() {
		Waiting waiting = waiting(5_000);
		waiting.joined(this.line, false);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.promoted();
		assertThat(waiting.isHead()).isTrue();
		assertThat(waiting.turnTimedOut(sleep.ticket())).as("no longer queued").isSameAs(Waiting.Next.NONE);
		Waiting.Send send = (Waiting.Send) waiting.woken(Waiting.ANY_TICKET);
		assertThat(send.attempt().request()).isNotNull();
	}

	@Test
	void aHeadFoundTakenSleepsAtMostUntilTheLeaseItWasToldOfThenTries() {
		Waiting waiting = head(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.replied(attempt(waiting), taken(3, 500));
		assertThat(sleep.nanos()).isEqualTo(500 * MS + Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(waiting.woken(sleep.ticket() - 1)).as("an older timer").isSameAs(Waiting.Next.NONE);
		assertThat(waiting.woken(sleep.ticket())).as("asleep").isInstanceOf(Waiting.Send.class);
		assertThat(waiting.woken(sleep.ticket())).as("awake now").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aMessageWakesTheSleepingHeadOnlyIfItCallsForAnAttempt() {
		Waiting waiting = head(5_000);
		waiting.replied(attempt(waiting), taken(3, 500));
		assertThat(waiting.signalled()).as("nothing heard").isSameAs(Waiting.Next.NONE);
		this.line.signal(true);
		assertThat(waiting.signalled()).isInstanceOf(Waiting.Send.class);
		assertThat(waiting.signalled()).as("awake now").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aHeadWokenAfterItsWaitTimeRanOutGivesUp() {
		Waiting waiting = head(100);
		waiting.replied(attempt(waiting), taken(3, 5_000));
		advance(200);
		this.line.signal(false);
		assertThat(waiting.signalled()).isEqualTo(new Waiting.GiveUp(null));
	}

	@Test
	void aGrantInTimeIsHeld() {
		Waiting waiting = head(5_000);
		Waiting.Next next = waiting.replied(attempt(waiting), new AcquireResult(1, 9, -1, -1));
		assertThat(((Waiting.Hold) next).grant().token()).isEqualTo(9);
		assertThat(this.line.lastProgressNanos()).isEqualTo(this.now[0]);
	}

	@Test
	void aLateGrantIsTriedAgainWhileWaitTimeIsLeftAndReleasedOnceItIsOver() {
		Waiting waiting = head(60_000);
		Acquisition.Attempt sent = attempt(waiting);
		advance(30_001);
		Waiting.Send again = (Waiting.Send) waiting.replied(sent, new AcquireResult(1, 9, -1, -1));
		assertThat(again.late()).isNotNull();
		assertThat(again.attempt().hold()).isEqualTo(sent.hold());
		advance(30_001);
		Waiting.GiveUp giveUp = (Waiting.GiveUp) waiting.replied(again.attempt(), new AcquireResult(1, 9, -1, -1));
		assertThat(giveUp.release()).isNotNull();
		assertThat(giveUp.release().token()).isEqualTo(9);
	}

	@Test
	void aSelfDeadlockFails() {
		Waiting waiting = head(5_000);
		Waiting.Fail fail = (Waiting.Fail) waiting.replied(attempt(waiting), new AcquireResult(-1, 3, 500, -1));
		assertThat(fail.error()).isInstanceOf(LockSelfDeadlockException.class);
	}

	@Test
	void theEndForgetsTheRequestInTheLine() {
		Waiting waiting = head(5_000);
		HandOffRequest request = waiting.acquisition().request();
		assertThat(request).isNotNull();
		WaitEnding ending = waiting.end(false);
		assertThat(ending.forget()).isEqualTo(request);
		assertThat(ending.withdraw()).as("never sent, so never filed").isFalse();
	}

	private Waiting head(long waitMillis) {
		Waiting waiting = waiting(waitMillis);
		waiting.begin(true);
		waiting.joined(this.line, true);
		return waiting;
	}

	/**
	 * Send the head's next attempt, as its subscription came.
	 */
	private Acquisition.Attempt attempt(Waiting waiting) {
		return ((Waiting.Send) waiting.woken(Waiting.ANY_TICKET)).attempt();
	}

	@Test
	void aHeadWaitingByPubSubWithAPlainRequestSleepsToTheLeaseItWasToldOf() {
		Waiting waiting = head(60_000);
		Waiting.Send first = (Waiting.Send) waiting.woken(Waiting.ANY_TICKET);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.replied(first.attempt(), taken(3, 700));
		assertThat(sleep.nanos()).isEqualTo(701 * MS);
	}

	@Test
	void aHeadWaitingByPubSubForALongerLeaseSleepsHalfItsRequestsClaim() {
		Waiting waiting = head(60_000);
		Waiting.Send first = (Waiting.Send) waiting.woken(Waiting.ANY_TICKET);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.replied(first.attempt(), taken(3, 10_000));
		assertThat(sleep.nanos()).isEqualTo(HandOffRequest.CLAIM_MILLIS / 2 * MS);
	}

	@Test
	void aProgressAwareWaiterBehindAHeadThatIsToldByMessagesGivesUpWithoutReading() {
		Waiting head = head(5_000);
		head.replied(attempt(head), taken(3, 3_000));
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false);
		advance(400);
		assertThat(behind.turnTimedOut(turn.ticket())).isEqualTo(new Waiting.GiveUp(null));
	}

	/**
	 * A head that undoes an interrupted attempt releases what the reply grants (the
	 * driver takes that reply as any other, then releases the grant in it): that grant is
	 * a change of hands, which a progress-aware waiter behind it waits on (the
	 * simulation's seed 5714 gave up 359 ms after one, within its 400 ms wait).
	 */
	@Test
	void aGrantAHeadNoLongerWantsIsAChangeOfHandsForTheWaitersBehindIt() {
		Waiting head = head(5_000);
		Acquisition.Attempt inFlight = attempt(head);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false);
		advance(40);
		Waiting.Hold unwanted = (Waiting.Hold) head.replied(inFlight, new AcquireResult(1, 9, -1, -1));
		assertThat(unwanted.grant().token()).isEqualTo(9);
		advance(390);
		Waiting.AwaitTurn again = (Waiting.AwaitTurn) behind.turnTimedOut(turn.ticket());
		assertThat(again.nanos()).isEqualTo(10 * MS);
	}

	@Test
	void aRefusalAHeadNoLongerWantsIsReleasedNothingButTellsTheLineWhoHolds() {
		Waiting head = head(5_000);
		assertThat(head.replied(attempt(head), taken(3, 500))).as("no grant").isInstanceOf(Waiting.Sleep.class);
		assertThat(this.line.holderTokenAt(this.now[0], this.line.signals())).isEqualTo(3);
		assertThat(this.line.holder()).isEqualTo(new HolderSighting(500, this.now[0]));
	}

	/**
	 * A head that leaves the line takes what it knew of the holder with it, and no
	 * message may tell the waiter that follows of changes of hands meanwhile (this JVM
	 * then has no request in Redis's line): the new head compares its first reply with
	 * the token its line last saw.
	 */
	@Test
	void aNewHeadWhoseFirstReplyNamesAnotherHolderThanItsLineSawWaitsOn() {
		Waiting head = head(5_000);
		Waiting behind = progressAware(400);
		behind.joined(this.line, false);
		advance(10);
		head.replied(attempt(head), taken(3, 2_000));
		advance(30);
		head.end(false);
		behind.promoted();
		Waiting.Send first = (Waiting.Send) behind.woken(Waiting.ANY_TICKET);
		advance(300);
		behind.replied(first.attempt(), taken(4, 1_000));
		assertThat(this.line.lastProgressNanos()).isEqualTo(this.now[0]);
		advance(390);
		assertThat(behind.acquisition().deadline().remainingNanos()).as("390 ms after the change it learnt of")
			.isEqualTo(10 * MS);
	}

	@Test
	void aNewHeadComparesItsFirstReplyOnlyWithATokenThatNamedTheHolderWhenItsWaitBegan() {
		Waiting head = head(5_000);
		head.replied(attempt(head), taken(3, 5));
		advance(10);
		Waiting behind = progressAware(400);
		behind.joined(this.line, false);
		head.end(false);
		behind.promoted();
		Waiting.Send first = (Waiting.Send) behind.woken(Waiting.ANY_TICKET);
		advance(300);
		behind.replied(first.attempt(), taken(4, 1_000));
		assertThat(this.line.lastProgressNanos()).as("the lease it saw ended before the wait began").isZero();
		advance(100);
		assertThat(behind.acquisition().deadline().remainingNanos()).isZero();
	}

	/**
	 * A line's token read before the waiter began still names the holder at its start if
	 * that holder's lease outlasted the start and no message came between: the lease's
	 * end and another process's take tell no one (a helper's review of session 28).
	 */
	@Test
	void aTokenSeenBeforeTheWaitBeganCountsWhileItsLeaseOutlastedTheStart() {
		Waiting head = head(5_000);
		head.replied(attempt(head), taken(3, 300));
		advance(10);
		Waiting behind = progressAware(400);
		behind.joined(this.line, false);
		advance(291);
		head.end(false);
		behind.promoted();
		Waiting.Send first = (Waiting.Send) behind.woken(Waiting.ANY_TICKET);
		behind.replied(first.attempt(), taken(4, 1_000));
		assertThat(this.line.lastProgressNanos()).isEqualTo(this.now[0]);
	}

	@Test
	void aTokenSeenBeforeTheWaitBeganCountsNotIfAMessageCameBeforeTheWaiterJoined() {
		Waiting head = head(5_000);
		head.replied(attempt(head), taken(3, 300));
		advance(10);
		this.line.signal(true);
		Waiting behind = progressAware(400);
		behind.joined(this.line, false);
		advance(100);
		head.end(false);
		behind.promoted();
		Waiting.Send first = (Waiting.Send) behind.woken(Waiting.ANY_TICKET);
		behind.replied(first.attempt(), taken(4, 1_000));
		assertThat(this.line.lastProgressNanos()).as("the holder may have changed before the waiter began").isZero();
	}

	/**
	 * A change of hands the line marked after its latest token restarts the waiters from
	 * the mark: a first reply naming the new holder is that change, not a later one (a
	 * helper's review: the wait restarted again from the reply, nearly twice the wait
	 * time behind one holder).
	 */
	@Test
	void aNewHeadDoesNotCountAChangeItsLineAlreadyMarked() {
		Waiting behind = progressAware(400);
		Waiting head = head(5_000);
		behind.joined(this.line, false);
		advance(1);
		head.replied(attempt(head), taken(3, 2_000));
		advance(2);
		long marked = this.now[0];
		this.line.markProgress(marked);
		advance(387);
		head.end(false);
		behind.promoted();
		Waiting.Send first = (Waiting.Send) behind.woken(Waiting.ANY_TICKET);
		behind.replied(first.attempt(), taken(4, 1_000));
		assertThat(this.line.lastProgressNanos()).isEqualTo(marked);
		assertThat(behind.acquisition().deadline().remainingNanos()).isEqualTo(13 * MS);
	}

	private Waiting progressAware(long waitMillis) {
		return new Waiting(new Acquisition(spec(waitMillis, true), "owner-2", false, this.clock, UniqueIds.ofProcess()),
				true);
	}

	private Waiting waiting(long waitMillis) {
		return new Waiting(new Acquisition(spec(waitMillis), "owner-1", false, this.clock, UniqueIds.ofProcess()),
				true);
	}

	private void advance(long millis) {
		this.now[0] += millis * MS;
	}

	private static AcquireResult taken(long token, long holderTtlMillis) {
		return new AcquireResult(0, token, holderTtlMillis, -1);
	}

	private static LockSpec spec(long waitMillis) {
		return spec(waitMillis, false);
	}

	private static LockSpec spec(long waitMillis, boolean progressAware) {
		return new LockSpec(LockName.of("orders", "42"), "p:{orders:42}", "p:{orders:42}:released", LockKind.EXCLUSIVE,
				0, "q", 30_000, waitMillis * MS, progressAware, false, 0, 5_000,
				new WaitMode(WaitStrategy.PUBSUB, List.of("p:{orders:42}:released"), 100 * MS), true, null);
	}

}
