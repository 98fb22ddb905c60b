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
		Waiting.Send first = (Waiting.Send) waiting.joined(this.line, true, true);
		assertThat(waiting.isHead()).isTrue();
		assertThat(first.attempt().request()).isNotNull();
	}

	@Test
	void aReentryNeverJoinsAtOnce() {
		Waiting waiting = new Waiting(new Acquisition(spec(5_000), "owner-1", true, this.clock), true);
		assertThat(waiting.begin(true)).isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadWaitingForItsSubscriptionSleepsUntilWokenByAnyTicket() {
		Waiting waiting = waiting(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.joined(this.line, true, false);
		assertThat(sleep.nanos()).isPositive();
		assertThat(waiting.woken(Waiting.ANY_TICKET)).isInstanceOf(Waiting.Send.class);
		assertThat(waiting.woken(Waiting.ANY_TICKET)).as("a second wake-up").isSameAs(Waiting.Next.NONE);
	}

	@Test
	void aWaiterBehindTheHeadWaitsForItsTurnUntilItsWaitTimeRunsOut() {
		Waiting waiting = waiting(5_000);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) waiting.joined(this.line, false, true);
		assertThat(waiting.isQueued()).isTrue();
		assertThat(turn.nanos()).isEqualTo(5_000 * MS);
		advance(5_000);
		assertThat(waiting.turnTimedOut(turn.ticket() - 1)).as("an older timer").isSameAs(Waiting.Next.NONE);
		assertThat(waiting.turnTimedOut(turn.ticket())).isEqualTo(new Waiting.GiveUp(null));
		assertThat(waiting.isQueued()).isFalse();
	}

	@Test
	void aProgressAwareWaiterWaitsOnForItsTurnWhenTheLockChangedHands() {
		Waiting waiting = new Waiting(new Acquisition(spec(5_000, true), "owner-1", false, this.clock), true);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) waiting.joined(this.line, false, true);
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
		waiting.joined(this.line, false, true);
		Waiting.Send send = (Waiting.Send) waiting.promoted(true);
		assertThat(waiting.isHead()).isTrue();
		assertThat(waiting.isQueued()).isFalse();
		assertThat(send.attempt().request()).isNotNull();
	}

	@Test
	void aHeadWithNothingToFileSleepsOnTheCountReadBeforeItsFirstAttempt() {
		Waiting waiting = new Waiting(new Acquisition(spec(5_000), "owner-1", false, this.clock), false);
		this.line.signal(true);
		waiting.seenBeforeFirstAttempt(this.line, this.line.signals());
		Waiting.Send first = (Waiting.Send) waiting.begin(true);
		assertThat(waiting.replied(first.attempt(), taken(3, 500))).isSameAs(Waiting.Next.JOIN_LINE);
		assertThat(waiting.joined(this.line, true, true)).isInstanceOf(Waiting.Sleep.class);
		this.line.signal(true);
		assertThat(waiting.signalled()).as("a release after the first attempt").isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadWithARequestToFileTriesAtOnceEvenOnTheCountReadBefore() {
		Waiting waiting = new Waiting(new Acquisition(spec(5_000), "owner-1", true, this.clock), true);
		waiting.seenBeforeFirstAttempt(this.line, this.line.signals());
		Waiting.Send first = (Waiting.Send) waiting.begin(true);
		waiting.replied(first.attempt(), taken(3, 500));
		Waiting.Send filing = (Waiting.Send) waiting.joined(this.line, true, true);
		assertThat(filing.attempt().request()).isNotNull();
	}

	@Test
	void aHeadFoundTakenSleepsAtMostUntilTheLeaseItWasToldOfThenTries() {
		Waiting waiting = head(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.replied(attempt(waiting), taken(3, 500));
		assertThat(waiting.isSleeping()).isTrue();
		assertThat(sleep.nanos()).isEqualTo(500 * MS + Deadline.LEASE_END_MARGIN_NANOS);
		assertThat(waiting.woken(sleep.ticket() - 1)).as("an older timer").isSameAs(Waiting.Next.NONE);
		assertThat(waiting.woken(sleep.ticket())).isInstanceOf(Waiting.Send.class);
		assertThat(waiting.isSleeping()).isFalse();
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
		Acquisition.Ending ending = waiting.end(false);
		assertThat(ending.forget()).isEqualTo(request);
		assertThat(ending.withdraw()).as("never sent, so never filed").isNull();
	}

	@Test
	void aHeadPromotedWhileALocalHoldOfAnotherOwnerLastsOffersItselfBeforeItsFirstAttempt() {
		Waiting waiting = waiting(5_000);
		long seen = this.line.signals();
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.joined(this.line, true, true,
				new Waiting.LocalHold(seen, this.now[0] + 300 * MS));
		assertThat(sleep.nanos()).as("until the local hold's lease ends").isEqualTo(300 * MS);
		assertThat(waiting.isSleeping()).isTrue();
		assertThat(waiting.acquisition().offerable()).as("offers its request, not filed yet").isTrue();
		assertThat(waiting.acquisition().request()).isNotNull();
		assertThat(waiting.signalled()).as("no signal since the count was read").isSameAs(Waiting.Next.NONE);
		this.line.signal(true);
		Waiting.Send first = (Waiting.Send) waiting.signalled();
		assertThat(first.attempt().request()).as("its first attempt files the request").isNotNull();
	}

	@Test
	void aSignalBetweenTheCountAndTheOfferWakesTheHeadAtOnce() {
		Waiting waiting = waiting(5_000);
		long seen = this.line.signals();
		// The local hold ends and signals after the count was read, before the head
		// sleeps.
		this.line.signal(true);
		waiting.joined(this.line, true, true, new Waiting.LocalHold(seen, this.now[0] + 300 * MS));
		assertThat(waiting.signalled()).isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadOfferingFirstAttemptsWhenTheLocalLeaseEnds() {
		Waiting waiting = waiting(5_000);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.joined(this.line, true, true,
				new Waiting.LocalHold(this.line.signals(), this.now[0] + 300 * MS));
		advance(300);
		assertThat(waiting.woken(sleep.ticket())).isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadTriesAtOnceWhenTheLocalHoldIsOverOrItCannotOffer() {
		Waiting.LocalHold over = new Waiting.LocalHold(this.line.signals(), this.now[0]);
		assertThat(waiting(5_000).joined(this.line, true, true, over)).as("lease over")
			.isInstanceOf(Waiting.Send.class);
		Waiting.LocalHold lasting = new Waiting.LocalHold(this.line.signals(), this.now[0] + 300 * MS);
		assertThat(waiting(5_000).joined(this.line, true, false, lasting)).as("not subscribed: sleeps until it is")
			.isInstanceOf(Waiting.Sleep.class);
		Waiting reentry = new Waiting(new Acquisition(spec(5_000), "owner-1", true, this.clock), true);
		assertThat(reentry.joined(this.line, true, true, lasting)).as("holds it already")
			.isInstanceOf(Waiting.Send.class);
		Waiting noLine = new Waiting(new Acquisition(spec(5_000), "owner-1", false, this.clock), false);
		assertThat(noLine.joined(this.line, true, true, lasting)).as("lines nothing up")
			.isInstanceOf(Waiting.Send.class);
	}

	@Test
	void aHeadOfferingFirstSleepsNoLongerThanItsWaitTime() {
		Waiting waiting = waiting(100);
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.joined(this.line, true, true,
				new Waiting.LocalHold(this.line.signals(), this.now[0] + 30_000 * MS));
		assertThat(sleep.nanos()).isLessThanOrEqualTo(100 * MS);
	}

	@Test
	void aWaiterGrantedWhileItsPlaceWasFirstHoldsAsTheHead() {
		Waiting waiting = waiting(5_000);
		assertThat(waiting.joined(this.line, false, true)).isInstanceOf(Waiting.AwaitTurn.class);
		long sent = this.now[0];
		advance(5);
		Waiting.Hold hold = (Waiting.Hold) waiting.handedOver(9, sent);
		assertThat(hold.grant().token()).isEqualTo(9);
		assertThat(hold.grant().sentNanos()).isEqualTo(sent);
		assertThat(waiting.isHead()).isTrue();
		assertThat(waiting.isQueued()).isFalse();
	}

	@Test
	void aWaiterGrantedTooLateWhileQueuedTriesAgainAsTheHeadWithItsRequest() {
		Waiting waiting = waiting(60_000);
		waiting.joined(this.line, false, true);
		long sent = this.now[0];
		advance(30_001);
		Waiting.Send again = (Waiting.Send) waiting.handedOver(9, sent);
		assertThat(again.late()).isNotNull();
		assertThat(again.attempt().request()).as("files its request as the head").isNotNull();
		assertThat(waiting.isHead()).isTrue();
	}

	private Waiting head(long waitMillis) {
		Waiting waiting = waiting(waitMillis);
		waiting.begin(true);
		waiting.joined(this.line, true, false);
		return waiting;
	}

	/**
	 * Send the head's next attempt, as its subscription came.
	 */
	private Acquisition.Attempt attempt(Waiting waiting) {
		return ((Waiting.Send) waiting.woken(Waiting.ANY_TICKET)).attempt();
	}

	/**
	 * A chained head's wait for its hint ends by its own timer: the driver pokes the hint
	 * when the time the head would sleep is over, and the {@code BLPOP} lasts a backstop
	 * longer (docs/design/waiting-and-hand-off.md, "The hint wait").
	 */
	@Test
	void aChainedHeadPokesItsHintWhenItsHintWaitIsOver() {
		Waiting waiting = waiting(5_000);
		assertThat(waiting.begin(true)).isSameAs(Waiting.Next.JOIN_LINE);
		waiting.chain();
		Waiting.Send filing = (Waiting.Send) waiting.joined(this.line, true, true);
		Waiting.Chain chain = (Waiting.Chain) waiting.replied(filing.attempt(), taken(3, 500));
		assertThat(chain.blockNanos()).as("the lock's end and the lease-end margin").isEqualTo(501 * MS);
		assertThat(chain.blpopNanos(60_000 * MS)).isEqualTo(551 * MS);
		assertThat(chain.pokeNanos(60_000 * MS)).isEqualTo(501 * MS);
		assertThat(chain.blpopNanos(1_000 * MS)).as("half the command timeout").isEqualTo(500 * MS);
		assertThat(chain.pokeNanos(1_000 * MS)).as("sent again when its BLPOP ends").isEqualTo(-1);
		assertThat(chain.blpopNanos(1_020 * MS)).as("a shorter backstop").isEqualTo(510 * MS);
		assertThat(chain.pokeNanos(1_020 * MS)).isEqualTo(501 * MS);
		advance(501);
		assertThat(waiting.woken(chain.ticket())).isEqualTo(new Waiting.Poke(0, chain.ticket()));
		assertThat(waiting.woken(chain.ticket() - 1)).as("an older timer").isSameAs(Waiting.Next.NONE);
	}

	/**
	 * A chained head files a quiet request: a release that reserves the lock for someone
	 * else may tell it nothing, so however long a hold it was told of, its pair ends by
	 * its own poke a claim after the reply it decided on, which then reads the lock again
	 * (docs/design/waiting-and-hand-off.md, "No reserved: message"). Before, a quarter of
	 * its lease: 7.5 s behind this hold.
	 */
	@Test
	void aChainedHeadBehindALongHoldReadsTheLockAgainAClaimAfterItsLastAttempt() {
		Waiting waiting = waiting(60_000);
		waiting.begin(true);
		waiting.chain();
		Waiting.Send filing = (Waiting.Send) waiting.joined(this.line, true, true);
		assertThat(waiting.acquisition().request()).isNotNull();
		assertThat(waiting.acquisition().request().quiet()).isTrue();
		assertThat(waiting.acquisition().request().member()).matches("2000:q:.+");
		advance(3);
		Waiting.Chain chain = (Waiting.Chain) waiting.replied(filing.attempt(), taken(3, 20_000));
		assertThat(chain.blockNanos()).as("a claim after the reply").isEqualTo(2_000 * MS);
		assertThat(chain.endsWait()).isTrue();
		assertThat(chain.pokeNanos(60_000 * MS)).isEqualTo(2_000 * MS);
		advance(2_000);
		assertThat(waiting.woken(chain.ticket())).isEqualTo(new Waiting.Poke(0, chain.ticket()));
	}

	@Test
	void aHeadWaitingByPubSubWithAPlainRequestSleepsToTheLeaseItWasToldOf() {
		Waiting waiting = head(60_000);
		Waiting.Send first = (Waiting.Send) waiting.woken(Waiting.ANY_TICKET);
		assertThat(waiting.acquisition().request().quiet()).isFalse();
		Waiting.Sleep sleep = (Waiting.Sleep) waiting.replied(first.attempt(), taken(3, 10_000));
		assertThat(sleep.nanos()).isEqualTo(10_001 * MS);
	}

	/**
	 * A progress-aware waiter queued behind a quiet head reads the lock before it gives
	 * up: releases that hand the lock between other processes may tell its line nothing,
	 * and the head's pair reads the lock only once a claim.
	 */
	@Test
	void aProgressAwareWaiterBehindAQuietHeadReadsTheLockBeforeItGivesUp() {
		chainedHead(5_000);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		advance(400);
		Waiting.Peek peek = (Waiting.Peek) behind.turnTimedOut(turn.ticket());
		assertThat(behind.peeked(peek.ticket() - 1, 2)).as("an older ticket").isSameAs(Waiting.Next.NONE);
		advance(1);
		Waiting.AwaitTurn again = (Waiting.AwaitTurn) behind.peeked(peek.ticket(), 4);
		assertThat(again.nanos()).as("restarted from the reading").isEqualTo(400 * MS);
		advance(400);
		peek = (Waiting.Peek) behind.turnTimedOut(again.ticket());
		assertThat(behind.peeked(peek.ticket(), 4)).as("no hold began since").isEqualTo(new Waiting.GiveUp(null));
	}

	@Test
	void aProgressAwareWaiterBehindAQuietHeadGivesUpWhenTheHolderItsLineKnewStillHolds() {
		chainedHead(5_000);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		advance(400);
		Waiting.Peek peek = (Waiting.Peek) behind.turnTimedOut(turn.ticket());
		assertThat(behind.peeked(peek.ticket(), 2)).isEqualTo(new Waiting.GiveUp(null));
	}

	/**
	 * Readers hold the lock: attempts and the reading both report 0, whatever the slot's
	 * counter does (a helper's review: the first reading gave the counter, which other
	 * locks of the slot move, and the waiter never gave up behind a long read hold).
	 */
	@Test
	void aProgressAwareWaiterBehindAQuietHeadGivesUpWhileReadersHoldTheLock() {
		Waiting head = chainedHead(5_000);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		head.replied(head.acquisition().next(this.line), taken(0, 3_000));
		advance(400);
		Waiting.Peek peek = (Waiting.Peek) behind.turnTimedOut(turn.ticket());
		assertThat(behind.peeked(peek.ticket(), 0)).isEqualTo(new Waiting.GiveUp(null));
	}

	@Test
	void aProgressAwareWaiterThatKnowsOfNoHolderWaitsOnOnceAfterItsReading() {
		chainedHead(5_000);
		// The lease the line's last reply told of ended before this wait began.
		advance(3_001);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		advance(400);
		Waiting.Peek peek = (Waiting.Peek) behind.turnTimedOut(turn.ticket());
		Waiting.AwaitTurn again = (Waiting.AwaitTurn) behind.peeked(peek.ticket(), 3);
		advance(400);
		peek = (Waiting.Peek) behind.turnTimedOut(again.ticket());
		assertThat(behind.peeked(peek.ticket(), 3)).isEqualTo(new Waiting.GiveUp(null));
	}

	@Test
	void aReadingThatFailsGivesUp() {
		chainedHead(5_000);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		advance(400);
		Waiting.Peek peek = (Waiting.Peek) behind.turnTimedOut(turn.ticket());
		assertThat(behind.peekFailed(peek.ticket() - 1)).isSameAs(Waiting.Next.NONE);
		assertThat(behind.peekFailed(peek.ticket())).isEqualTo(new Waiting.GiveUp(null));
	}

	@Test
	void aProgressAwareWaiterBehindAHeadThatIsToldByMessagesGivesUpWithoutReading() {
		Waiting head = head(5_000);
		head.replied(attempt(head), taken(3, 3_000));
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		advance(400);
		assertThat(behind.turnTimedOut(turn.ticket())).isEqualTo(new Waiting.GiveUp(null));
	}

	/**
	 * A head stopped with its attempt in flight releases what the reply grants
	 * ({@code WaitLoop.stopChain}, a hand-over it no longer wants): that grant is a
	 * change of hands, which a progress-aware waiter behind it waits on (the simulation's
	 * seed 5714 gave up 359 ms after one, within its 400 ms wait).
	 */
	@Test
	void aGrantAHeadNoLongerWantsIsAChangeOfHandsForTheWaitersBehindIt() {
		Waiting head = head(5_000);
		Acquisition.Attempt inFlight = attempt(head);
		Waiting behind = progressAware(400);
		Waiting.AwaitTurn turn = (Waiting.AwaitTurn) behind.joined(this.line, false, true);
		advance(40);
		Grant unwanted = head.unwanted(inFlight, new AcquireResult(1, 9, -1, -1));
		assertThat(unwanted).isNotNull();
		assertThat(unwanted.token()).isEqualTo(9);
		advance(390);
		Waiting.AwaitTurn again = (Waiting.AwaitTurn) behind.turnTimedOut(turn.ticket());
		assertThat(again.nanos()).isEqualTo(10 * MS);
	}

	@Test
	void aRefusalAHeadNoLongerWantsIsReleasedNothingButTellsTheLineWhoHolds() {
		Waiting head = head(5_000);
		assertThat(head.unwanted(attempt(head), taken(3, 500))).isNull();
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
		behind.joined(this.line, false, true);
		advance(10);
		head.replied(attempt(head), taken(3, 2_000));
		advance(30);
		head.end(false);
		Waiting.Send first = (Waiting.Send) behind.promoted(true);
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
		behind.joined(this.line, false, true);
		head.end(false);
		Waiting.Send first = (Waiting.Send) behind.promoted(true);
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
		behind.joined(this.line, false, true);
		advance(291);
		head.end(false);
		Waiting.Send first = (Waiting.Send) behind.promoted(true);
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
		behind.joined(this.line, false, true);
		advance(100);
		head.end(false);
		Waiting.Send first = (Waiting.Send) behind.promoted(true);
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
		behind.joined(this.line, false, true);
		advance(1);
		head.replied(attempt(head), taken(3, 2_000));
		advance(2);
		long marked = this.now[0];
		this.line.markProgress(marked);
		advance(387);
		head.end(false);
		Waiting.Send first = (Waiting.Send) behind.promoted(true);
		behind.replied(first.attempt(), taken(4, 1_000));
		assertThat(this.line.lastProgressNanos()).isEqualTo(marked);
		assertThat(behind.acquisition().deadline().remainingNanos()).isEqualTo(13 * MS);
	}

	/**
	 * A head that chains, its request filed and its pair about to be sent.
	 */
	private Waiting chainedHead(long waitMillis) {
		Waiting waiting = waiting(waitMillis);
		waiting.begin(true);
		waiting.chain();
		Waiting.Send filing = (Waiting.Send) waiting.joined(this.line, true, true);
		waiting.replied(filing.attempt(), taken(2, 3_000));
		return waiting;
	}

	private Waiting progressAware(long waitMillis) {
		return new Waiting(new Acquisition(spec(waitMillis, true), "owner-2", false, this.clock), true);
	}

	private Waiting waiting(long waitMillis) {
		return new Waiting(new Acquisition(spec(waitMillis), "owner-1", false, this.clock), true);
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
		return new LockSpec(
				new LockTarget(LockName.of("orders", "42"), "p:{orders:42}", "p:{orders:42}:released",
						LockKind.EXCLUSIVE, 0, "q"),
				new LockTiming(30_000, waitMillis * MS, progressAware, false, 0, 5_000),
				new WaitMode(WaitStrategy.PUBSUB, List.of("p:{orders:42}:released"), 100 * MS), true, null);
	}

}
