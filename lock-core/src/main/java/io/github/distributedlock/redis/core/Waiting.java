package io.github.distributedlock.redis.core;

import org.jspecify.annotations.Nullable;

/**
 * Where one single-lock acquisition is in its wait, apart from its I/O: trying once
 * outside the lock's local line, waiting for its turn in that line, or at its head,
 * trying or asleep. Each event (a reply, a place in the line, a message, a timer) comes
 * in as a call, and the answer says what to do next ({@link Next}). What an attempt
 * carries and what a reply means are the {@link Acquisition}'s decisions; the order of
 * the steps is this class's.
 * <p>
 * The driver keeps the line itself, the timers and the connection, and hands back the
 * ticket of each sleep or turn it was told to wait for, so that a timer of an earlier one
 * does nothing. Not thread-safe: one call at a time (the driver's state lock).
 */
public final class Waiting {

	/**
	 * The ticket of a wake-up that is not a timer's (the line's subscription came): wakes
	 * whatever sleep is current.
	 */
	public static final long ANY_TICKET = -1;

	private final Acquisition acquisition;

	private final boolean lineUp;

	private @Nullable WaitLine line;

	private boolean head;

	private boolean queued;

	private boolean sleeping;

	// Whether it waited for its turn behind another waiter: a grant then says it waited.
	private boolean waitedForTurn;

	// The line's signal count when it joined: a token the line saw before this wait
	// began still names the holder if no signal came between.
	private long signalsAtJoin;

	// Numbers sleeps and waits for the turn, so that an earlier one's timer wakes nobody.
	private long tickets;

	// The number of the cohort this head sleeps under, sending nothing, or 0 (see
	// underCohort).
	private long cohort;

	/**
	 * @param handOff whether the template lines waiters up for reservations
	 */
	public Waiting(Acquisition acquisition, boolean handOff) {
		this.acquisition = acquisition;
		this.lineUp = Acquisition.linesUp(handOff, acquisition.spec(), acquisition.deadline());
	}

	public Acquisition acquisition() {
		return this.acquisition;
	}

	public boolean isHead() {
		return this.head;
	}

	/**
	 * The first step: join the line at once if it is hot (the lock is likely taken, so
	 * the first attempt should file the hand-off request), else try once outside it.
	 * @param hot whether the lock's local line is there and subscribed
	 */
	public Next begin(boolean hot) {
		if (this.lineUp && !this.acquisition.holdsIt() && hot) {
			return Next.JOIN_LINE;
		}
		return send(null);
	}

	/**
	 * The acquisition joined the lock's local line.
	 * @param first whether it is first, and so the head at once ({@link #promoted})
	 */
	public Next joined(WaitLine joined, boolean first) {
		this.line = joined;
		this.signalsAtJoin = joined.signals();
		joined.holderSeen(this.acquisition.deadline().holder());
		if (first) {
			return promoted();
		}
		this.queued = true;
		this.waitedForTurn = true;
		return awaitTurn();
	}

	/**
	 * It is this acquisition's turn: the head files its hand-off request (if it lines up)
	 * with its next attempt, sent once the line's channel is subscribed ({@link #woken}
	 * with {@link #ANY_TICKET}) or on its timer, as a subscription that never comes is no
	 * reason to sleep past the holder's lease.
	 */
	public Next promoted() {
		this.queued = false;
		this.head = true;
		if (this.lineUp) {
			inLine().expect(this.acquisition.fileRequest());
		}
		return sleep();
	}

	/** The turn's wait ran out: wait on after a progress-aware restart, or give up. */
	public Next turnTimedOut(long ticket) {
		if (!this.queued || ticket != this.tickets) {
			return Next.NONE;
		}
		this.acquisition.restartOnProgress(inLine().lastProgressNanos());
		if (this.acquisition.deadline().remainingNanos() > 0) {
			return awaitTurn();
		}
		this.queued = false;
		return new GiveUp(null);
	}

	public Next replied(Acquisition.Attempt sent, AcquireResult result) {
		AttemptOutcome outcome = takeReply(sent, result);
		if (outcome instanceof AttemptOutcome.Held held) {
			return new Hold(held.grant());
		}
		if (outcome instanceof AttemptOutcome.Late late) {
			// Again at once, from where this attempt was made (see AttemptOutcome.Late).
			return this.acquisition.retriesLateGrant() ? send(late.grant()) : new GiveUp(late.grant());
		}
		if (outcome instanceof AttemptOutcome.Failed failed) {
			return new Fail(failed.error());
		}
		if (outcome == AttemptOutcome.OVER) {
			return new GiveUp(null);
		}
		return this.head ? decide() : Next.JOIN_LINE;
	}

	/** Have the acquisition decide on a reply, and tell the line what the reply says. */
	private AttemptOutcome takeReply(Acquisition.Attempt sent, AcquireResult result) {
		WaitLine joined = this.line;
		if (joined != null) {
			this.acquisition.lineSaw(joined, this.signalsAtJoin);
		}
		AttemptOutcome outcome = this.acquisition.replied(sent, result, this.waitedForTurn);
		if (joined == null) {
			return outcome;
		}
		long now = this.acquisition.clockNanos();
		joined.tokenSeen(result.token(),
				result.acquired() ? this.acquisition.spec().leaseMillis() : result.holderTtlMillis(), now);
		if (result.acquired()) {
			// In time or too late, and wanted or not: Redis granted a hold.
			joined.markProgress(now);
		}
		else {
			if (this.acquisition.lastHandOffNanos() != 0) {
				joined.markProgress(this.acquisition.lastHandOffNanos());
			}
			joined.holderSeen(this.acquisition.deadline().holder());
		}
		return outcome;
	}

	/**
	 * A message reached the line while this acquisition is its head: try if it calls for
	 * that, else sleep again (a reservation for another may shorten it) or give up.
	 */
	public Next signalled() {
		WaitLine joined = this.line;
		if (!this.head || !this.sleeping || joined == null || joined.signals() == this.acquisition.seenSignals()) {
			return Next.NONE;
		}
		this.sleeping = false;
		if (this.acquisition.calledToTry(joined)) {
			return send(null);
		}
		return decide();
	}

	/**
	 * A sleep's timer fired, or the subscription came ({@link #ANY_TICKET}), which does
	 * not concern a head asleep under a cohort.
	 */
	public Next woken(long ticket) {
		if (!this.sleeping || (ticket != ANY_TICKET && ticket != this.tickets)
				|| (ticket == ANY_TICKET && this.cohort != 0)) {
			return Next.NONE;
		}
		this.sleeping = false;
		return send(null);
	}

	/**
	 * A cohort of this JVM holds the lock (docs/design/cohorting.md, rule 5): the head
	 * sends nothing and sleeps until a pass ({@link #passed}), the cohort's end
	 * ({@link #cohortEnded}), any message, its wait time, or the cohort's lease end as
	 * given, whichever comes first. A head that ever sent its hand-off request is not
	 * concerned: it keeps its place in Redis's line and attempts as before, and no pass
	 * reaches it. Any wake-up but a pass ends the sleep under the cohort, and the head
	 * attempts as before; Redis refuses it while the cohort's owner holds.
	 * @param leaseEndNanos the cohort's lease end, by the local clock, now
	 */
	public Next underCohort(long number, long leaseEndNanos) {
		if (!this.head || this.acquisition.filed() || this.acquisition.ownerTaken() || this.acquisition.holdsIt()
				|| LockOwners.isCustom(this.acquisition.owner())) {
			// A custom owner may hold the lock elsewhere: it takes no part.
			return Next.NONE;
		}
		this.cohort = number;
		this.sleeping = true;
		long untilLeaseEnds = leaseEndNanos - this.acquisition.clockNanos() + Deadline.LEASE_END_MARGIN_NANOS;
		long nanos = Math.min(Math.min(this.acquisition.deadline().remainingNanos(), untilLeaseEnds),
				Acquisition.MAX_SLEEP_NANOS);
		return new Sleep(Math.max(0, nanos), ++this.tickets);
	}

	/** Return the number of the cohort this head sleeps under, or 0. */
	public long cohort() {
		return this.sleeping ? this.cohort : 0;
	}

	/**
	 * The cohort this head sleeps under ended: attempt now, as a head does after a
	 * release message.
	 */
	public Next cohortEnded(long number) {
		if (!this.sleeping || this.cohort != number) {
			return Next.NONE;
		}
		return send(null);
	}

	/**
	 * Take the lock in memory from the cohort this head sleeps under, if the cohort
	 * passes it to this acquisition ({@link Cohort#passTo}; rule 4, the receiving side).
	 * @param releasing the grant of the hold released under the cohort
	 * @param minimumHoldLeftMillis what is left of the releasing hold's minimum hold
	 * @return the {@link Hold} of the passed grant, or {@link Next#NONE}: then the
	 * releaser releases through Redis
	 */
	public Next passed(Cohort from, Grant releasing, long minimumHoldLeftMillis) {
		Grant grant = (this.sleeping && this.cohort == from.number())
				? from.passTo(this.acquisition, releasing, minimumHoldLeftMillis) : null;
		if (grant == null) {
			return Next.NONE;
		}
		this.sleeping = false;
		this.cohort = 0;
		return new Hold(grant);
	}

	/** The wait ends: say what to undo, and forget the request in the line. */
	public WaitEnding end(boolean won) {
		this.sleeping = false;
		this.cohort = 0;
		this.queued = false;
		WaitEnding ending = this.acquisition.end(won);
		HandOffRequest filing = ending.forget();
		WaitLine joined = this.line;
		if (filing != null && joined != null) {
			joined.forget(filing);
		}
		return ending;
	}

	private Next decide() {
		HeadStep step = this.acquisition.whileHead(inLine());
		if (step == HeadStep.GIVE_UP) {
			return new GiveUp(null);
		}
		return (step == HeadStep.TRY) ? send(null) : sleep();
	}

	private Next send(@Nullable Grant late) {
		this.sleeping = false;
		this.cohort = 0;
		return new Send(this.acquisition.next(this.head ? this.line : null), late);
	}

	private Next sleep() {
		this.sleeping = true;
		this.cohort = 0;
		return new Sleep(this.acquisition.sleepNanos(), ++this.tickets);
	}

	private Next awaitTurn() {
		long left = Math.min(this.acquisition.deadline().remainingNanos(), Acquisition.MAX_SLEEP_NANOS);
		return new AwaitTurn(Math.max(0, left), ++this.tickets);
	}

	private WaitLine inLine() {
		WaitLine joined = this.line;
		if (joined == null) {
			throw new IllegalStateException("Not in line");
		}
		return joined;
	}

	/** What the driver does next. */
	public sealed interface Next permits Send, Sleep, AwaitTurn, Hold, GiveUp, Fail, Join, None {

		/** Join the lock's local line, then call {@link Waiting#joined}. */
		Next JOIN_LINE = new Join();

		/** Nothing: the event no longer concerns the acquisition. */
		Next NONE = new None();

	}

	/**
	 * Send this attempt, then call {@link Waiting#replied} with its reply.
	 *
	 * @param late a grant that came too late, which this attempt takes again (same hold
	 * id): released instead if the acquisition ended meanwhile, as nothing else would
	 */
	public record Send(Acquisition.Attempt attempt, @Nullable Grant late) implements Next {
	}

	/**
	 * Sleep at the head until a message ({@link Waiting#signalled}) or for at most this
	 * long ({@link Waiting#woken} with the ticket).
	 */
	public record Sleep(long nanos, long ticket) implements Next {
	}

	/**
	 * Wait for the turn in the line ({@link Waiting#promoted}) or for at most this long
	 * ({@link Waiting#turnTimedOut} with the ticket).
	 */
	public record AwaitTurn(long nanos, long ticket) implements Next {
	}

	/** The lock is won: hold it with this grant. */
	public record Hold(Grant grant) implements Next {
	}

	/** The wait time ran out: give up, releasing a grant that came too late, if any. */
	public record GiveUp(@Nullable Grant release) implements Next {
	}

	/** The acquisition fails with this error. */
	public record Fail(RuntimeException error) implements Next {
	}

	/** See {@link Next#JOIN_LINE}. */
	record Join() implements Next {
	}

	/** See {@link Next#NONE}. */
	record None() implements Next {
	}

}
