package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Where one single-lock acquisition is in its wait, apart from its I/O: trying once
 * outside the lock's local line, waiting for its turn in that line, or at its head,
 * trying or asleep. Each event (a reply, a place in the line, a message, a timer) comes
 * in as a call, and the answer says what to do next ({@link Next}): send an attempt, join
 * the line, wait for the turn, sleep, hold, give up or fail. What an attempt carries and
 * what a reply means are the {@link Acquisition}'s decisions; the order of the steps is
 * this class's.
 * <p>
 * The blocking driver ({@code WaitLoop}), the reactive one ({@code ReactiveAcquisition})
 * and the simulation run it; a driver keeps the line itself (who is first, the
 * subscription), the timers and the connection, and hands back the ticket of each sleep
 * or turn it was told to wait for, so that a timer of an earlier one does nothing. Not
 * thread-safe: one call at a time (the reactive driver calls it under its state lock).
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

	// Whether its chained pair is out: its attempt waits in Redis behind a BLPOP of its
	// hint key, and nothing else is sent for it until that attempt's reply.
	private boolean chained;

	// Whether it waited for its turn behind another waiter: a grant then says it waited.
	private boolean waitedForTurn;

	// The line's signal count when it joined: a token the line saw before this wait
	// began still names the holder if no signal came between.
	private long signalsAtJoin;

	// The signal count of a subscribed line read before the first attempt, and that
	// line: a head promoted in it with nothing to file may sleep on that count.
	private @Nullable WaitLine seenLine;

	private long seenBefore = -1;

	// Counts sleeps and waits for the turn, so that a timer of an earlier one wakes
	// nobody.
	private long tickets;

	/**
	 * @param handOff whether the template lines waiters up for reservations
	 */
	public Waiting(Acquisition acquisition, boolean handOff) {
		this.acquisition = acquisition;
		this.lineUp = acquisition.linesUp(handOff);
	}

	public Acquisition acquisition() {
		return this.acquisition;
	}

	/**
	 * Return the line it joined, or {@code null} before it joined one.
	 */
	@Nullable WaitLine line() {
		return this.line;
	}

	public boolean isHead() {
		return this.head;
	}

	/**
	 * Return whether it waits for its turn in the line.
	 */
	public boolean isQueued() {
		return this.queued;
	}

	public boolean isSleeping() {
		return this.sleeping;
	}

	/**
	 * Return whether its chained pair is out.
	 */
	public boolean isChained() {
		return this.chained;
	}

	/**
	 * Return whether it may wait for its reservation in chained pairs once it is the
	 * head: then its driver, holding a connection for the pairs, calls {@link #chain()}
	 * before it is the head.
	 */
	public boolean chainable() {
		return this.lineUp && !this.head && this.acquisition.chainable();
	}

	/**
	 * Wait in chained pairs from now on: its request is a chained one, and where it would
	 * sleep as the head once that request is filed it sends a {@link Chain} instead. See
	 * {@code docs/design/waiting-and-hand-off.md}, "The chained hint".
	 */
	public void chain() {
		if (!chainable()) {
			throw new IllegalStateException("Not chainable");
		}
		this.acquisition.chain();
	}

	/**
	 * Return whether it lines up for reservations: then a reservation for another waiter
	 * need not wake its sleeping head.
	 */
	public boolean linesUp() {
		return this.lineUp;
	}

	/**
	 * The first step: join the line at once if the lock was waited for in this JVM a
	 * moment ago (it is likely taken: the first attempt then files the hand-off request),
	 * else try once outside the line.
	 * @param hot whether the lock's local line is there and subscribed
	 */
	public Next begin(boolean hot) {
		if (this.lineUp && !this.acquisition.holdsIt() && hot) {
			return Next.JOIN_LINE;
		}
		return send(null);
	}

	/**
	 * Note the signal count of the lock's subscribed local line, read before the first
	 * attempt: if this acquisition becomes that line's head with no request to file, it
	 * sleeps on that count rather than try again at once (a message since then still
	 * wakes it).
	 */
	public void seenBeforeFirstAttempt(WaitLine line, long signals) {
		this.seenLine = line;
		this.seenBefore = signals;
	}

	/**
	 * The acquisition joined the lock's local line.
	 * @param first whether it is first in line, and so its head at once
	 * @param subscribed whether the line's channel is subscribed (a head that is not
	 * sleeps until it is, see {@link #promoted})
	 */
	public Next joined(WaitLine joined, boolean first, boolean subscribed) {
		return joined(joined, first, subscribed, null);
	}

	/**
	 * The acquisition joined the lock's local line, as
	 * {@link #joined(WaitLine, boolean, boolean)}; a head at once may offer itself first
	 * to a local hold, as in {@link #promoted(boolean, LocalHold)}.
	 */
	public Next joined(WaitLine joined, boolean first, boolean subscribed, @Nullable LocalHold local) {
		this.line = joined;
		this.signalsAtJoin = joined.signals();
		joined.holderSeen(this.acquisition.deadline().holder());
		if (first) {
			return promoted(subscribed, local);
		}
		this.queued = true;
		this.waitedForTurn = true;
		return awaitTurn();
	}

	/**
	 * It is this acquisition's turn: as the head it files its hand-off request (if it
	 * lines up) with its next attempt, sent at once if the channel is subscribed. If not,
	 * it sleeps until the driver wakes it ({@link #woken} with {@link #ANY_TICKET}) once
	 * it is, or until its timer: a subscription that never comes is no reason to sleep
	 * past the holder's lease.
	 */
	public Next promoted(boolean subscribed) {
		return promoted(subscribed, null);
	}

	/**
	 * It is this acquisition's turn, as in {@link #promoted(boolean)}; but if the lock is
	 * held by a hold of this JVM's template of another owner, whose release may grant it
	 * the lock ({@code hand-over.lua}), it sends nothing yet: it makes its request
	 * without filing it and sleeps, offering itself, until any signal, that hold's local
	 * lease end or its own wait time; then it attempts as usual. See
	 * {@code docs/design/waiting-and-hand-off.md}, "Offering before the first attempt".
	 * @param local that hold, looked up after the line's signal count was read, or
	 * {@code null} for none
	 */
	public Next promoted(boolean subscribed, @Nullable LocalHold local) {
		this.queued = false;
		this.head = true;
		if (this.lineUp) {
			inLine().expect(this.acquisition.fileRequest());
		}
		if (local != null && subscribed && this.lineUp && !this.acquisition.holdsIt() && this.acquisition.offerable()
				&& local.leaseEndNanos() - this.acquisition.clockNanos() > 0) {
			// Any signal since the count was read wakes it, and it then attempts.
			this.acquisition.seen(local.signalsBefore());
			this.sleeping = true;
			return new Sleep(this.acquisition.sleepNanos(local.leaseEndNanos()), ++this.tickets);
		}
		HandOffRequest request = this.acquisition.request();
		if (subscribed && this.seenLine == this.line && this.seenBefore >= 0
				&& (request == null || this.acquisition.filed())) {
			this.acquisition.seen(this.seenBefore);
			return decide();
		}
		return subscribed ? send(null) : sleep();
	}

	/**
	 * The wait for the turn ran out: wait on if the lock changed hands meanwhile (a
	 * progress-aware wait starts its time again), else give up.
	 */
	public Next turnTimedOut(long ticket) {
		if (!this.queued || ticket != this.tickets) {
			return Next.NONE;
		}
		this.acquisition.restartOnProgress(inLine().lastProgressNanos());
		if (this.acquisition.deadline().remainingNanos() > 0) {
			return awaitTurn();
		}
		if (this.acquisition.spec().progressAware() && inLine().quiet()) {
			// A release may have handed the lock between other processes without telling
			// this line, which its head's pair reads only once a claim.
			return new Peek(++this.tickets);
		}
		this.queued = false;
		return new GiveUp(null);
	}

	/**
	 * The reading a {@link Peek} asked for came: wait on if it shows that the lock
	 * changed hands since the holder this acquisition knows of, or cannot tell (a
	 * progress-aware wait starts its time again), else give up.
	 * @param token the value {@code peek.lua} read, or -1 for none
	 */
	public Next peeked(long ticket, long token) {
		if (!this.queued || ticket != this.tickets) {
			return Next.NONE;
		}
		this.acquisition.peeked(inLine(), this.signalsAtJoin, token);
		this.acquisition.restartOnProgress(inLine().lastProgressNanos());
		if (this.acquisition.deadline().remainingNanos() > 0) {
			return awaitTurn();
		}
		this.queued = false;
		return new GiveUp(null);
	}

	/**
	 * The reading a {@link Peek} asked for failed: give up, as the wait would have
	 * without it.
	 */
	public Next peekFailed(long ticket) {
		if (!this.queued || ticket != this.tickets) {
			return Next.NONE;
		}
		this.queued = false;
		return new GiveUp(null);
	}

	/**
	 * The reply of an attempt came.
	 */
	public Next replied(Acquisition.Attempt sent, AcquireResult result) {
		this.chained = false;
		AttemptOutcome outcome = takeReply(sent, result, this.waitedForTurn);
		if (outcome instanceof AttemptOutcome.Held held) {
			return new Hold(held.grant());
		}
		if (outcome instanceof AttemptOutcome.Late late) {
			// Granted too late to use: again at once, from where this attempt was made,
			// or released if the wait is over.
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

	/**
	 * The reply came of an attempt that the acquisition no longer wants: it was stopped
	 * with its chained pair out, or with a hand-over to it unsettled, or it undoes an
	 * attempt whose reply an interrupt threw away. The line learns of it as of any reply
	 * (a grant is a change of hands, which the waiters behind may be waiting on).
	 * @return the grant it brings, in time or too late, for the driver to release; or
	 * {@code null}
	 */
	public @Nullable Grant unwanted(Acquisition.Attempt sent, AcquireResult result) {
		AttemptOutcome outcome = takeReply(sent, result, true);
		if (outcome instanceof AttemptOutcome.Held held) {
			return held.grant();
		}
		return (outcome instanceof AttemptOutcome.Late late) ? late.grant() : null;
	}

	/**
	 * Have the acquisition decide on a reply, and tell the line what it says: who holds
	 * the lock, and whether it changed hands.
	 */
	private AttemptOutcome takeReply(Acquisition.Attempt sent, AcquireResult result, boolean waited) {
		WaitLine joined = this.line;
		if (joined != null) {
			this.acquisition.lineSaw(joined, this.signalsAtJoin);
		}
		AttemptOutcome outcome = this.acquisition.replied(sent, result, waited);
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
	 * A release of this JVM granted the lock to this head while it slept, or to this
	 * waiter while its place was first in line and its thread still to wake
	 * ({@code hand-over.lua}): decided as the reply to its own attempt would be, held if
	 * the lease counted from the releaser's clock reading is still ahead, else
	 * {@link AttemptOutcome.Late} (sent again at once, with the same hold id).
	 * @param token the token the grant gave
	 * @param sentNanos the releaser's clock reading before it sent the hand-over
	 */
	public Next handedOver(long token, long sentNanos) {
		this.sleeping = false;
		if (this.queued) {
			// Granted while its place was first, before it ran: it is the head.
			this.queued = false;
			this.head = true;
			if (this.lineUp) {
				inLine().expect(this.acquisition.fileRequest());
			}
		}
		return replied(this.acquisition.handedOver(sentNanos), new AcquireResult(1, token, -1, -1));
	}

	/**
	 * A release of this JVM sent a hand-over to this head and got no reply: the head
	 * tries at once, with the same hold id, which finds the grant if the hand-over ran.
	 */
	public Next handOverFailed() {
		return send(null);
	}

	/**
	 * A message reached the line while this acquisition is its head: try again if it
	 * calls for that, else sleep again (a reservation for another waiter may end the
	 * sleep sooner), or give up if the wait time ran out.
	 */
	public Next signalled() {
		WaitLine joined = this.line;
		if (this.chained) {
			return signalledChained(joined);
		}
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
	 * The timer of a sleep fired, or (with {@link #ANY_TICKET}) the line's subscription
	 * came: try again.
	 */
	public Next woken(long ticket) {
		if (this.chained) {
			// The time to try came while the pair is out: its attempt runs now.
			return (ticket == this.tickets) ? new Poke(0, ticket) : Next.NONE;
		}
		if (!this.sleeping || (ticket != ANY_TICKET && ticket != this.tickets)) {
			return Next.NONE;
		}
		this.sleeping = false;
		return send(null);
	}

	/**
	 * The wait ends; say what to undo, as {@link Acquisition#end(boolean)} does, and
	 * forget the request in the line.
	 */
	public Acquisition.Ending end(boolean won) {
		this.sleeping = false;
		this.chained = false;
		this.queued = false;
		Acquisition.Ending ending = this.acquisition.end(won);
		HandOffRequest filing = ending.forget();
		WaitLine joined = this.line;
		if (filing != null && joined != null) {
			joined.forget(filing);
		}
		return ending;
	}

	private Next decide() {
		Acquisition.Step step = this.acquisition.whileHead(inLine());
		if (step == Acquisition.Step.GIVE_UP) {
			return new GiveUp(null);
		}
		return (step == Acquisition.Step.TRY) ? send(null) : sleep();
	}

	private Next send(@Nullable Grant late) {
		this.sleeping = false;
		return new Send(this.acquisition.next(this.head ? this.line : null), late);
	}

	/**
	 * A message reached the line while the pair is out: its attempt is the only one this
	 * acquisition may have in flight, so a call to try again pokes it, and a reservation
	 * for another waiter sets when to poke it (that claim may lapse before the pair's
	 * {@code BLPOP} ends). A wait time that ran out needs nothing: the {@code BLPOP} ends
	 * with it.
	 */
	private Next signalledChained(@Nullable WaitLine joined) {
		if (joined == null || joined.signals() == this.acquisition.seenSignals()) {
			return Next.NONE;
		}
		Acquisition.Step step = this.acquisition.whileHead(joined);
		this.acquisition.heard(joined);
		if (step == Acquisition.Step.TRY) {
			return new Poke(0, this.tickets);
		}
		if (step == Acquisition.Step.GIVE_UP) {
			return Next.NONE;
		}
		return new Poke(this.acquisition.sleepNanos(), ++this.tickets);
	}

	private Next sleep() {
		if (this.acquisition.chains() && this.acquisition.filed() && this.head) {
			// Its attempt waits in Redis for the hint of its reservation.
			this.sleeping = false;
			this.chained = true;
			long sleep = this.acquisition.sleepNanos();
			long block = this.acquisition.hintWaitNanos(sleep);
			boolean endsWait = block >= sleep;
			return new Chain(this.acquisition.next(this.line), block, endsWait, ++this.tickets);
		}
		this.sleeping = true;
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

	/**
	 * What the driver does next.
	 */
	public sealed interface Next permits Send, Sleep, Chain, Poke, AwaitTurn, Peek, Hold, GiveUp, Fail, Join, None {

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
	 * Write the pair: {@code BLPOP} of the request's hint key, then the attempt, on the
	 * acquisition's own connection, without waiting between them; the attempt's clock
	 * reading is taken already. Then wait for the attempt's reply
	 * ({@link Waiting#replied}), telling the core of messages ({@link Waiting#signalled})
	 * and of the timers of {@link Poke}s ({@link Waiting#woken}).
	 * <p>
	 * {@code blockNanos} is the hint wait: as long as the head would sleep, or a quarter
	 * of its lease if that is shorter ({@code endsWait} false). When the wait ends with
	 * it (the lock's reported end, or the wait time's), the pair has a timer of its own,
	 * a {@link Poke}'s with this ticket, {@link #pokeNanos} after the attempt's clock
	 * reading: Redis ends a timed-out {@code BLPOP} at its next cron tick when it is
	 * idle, up to 100 ms late, so the poke is the wake-up, and the {@code BLPOP}, which
	 * lasts {@link #BACKSTOP_NANOS} longer, a backstop.
	 */
	public record Chain(Acquisition.Attempt attempt, long blockNanos, boolean endsWait, long ticket) implements Next {

		/**
		 * How much longer than its hint wait a pair's {@code BLPOP} lasts.
		 */
		public static final long BACKSTOP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

		/**
		 * The shortest command timeout with which a head chains. Its {@code BLPOP} lasts
		 * up to half the timeout, and an idle server ends it at its next cron tick, up to
		 * 100 ms late (hz 10): Lettuce's own timeout, from when the pair was written,
		 * must still leave the attempt behind it time to answer. Below, the head waits by
		 * pub/sub.
		 */
		public static final long MIN_COMMAND_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(400);

		/**
		 * Return how long the {@code BLPOP} blocks, before rounding to milliseconds: the
		 * hint wait, with the backstop when the wait ends with it (a pair cut short by a
		 * quarter of the lease is sent again, and needs none), and at most half the
		 * command timeout.
		 * @param commandTimeoutNanos the connection's command timeout
		 */
		public long blpopNanos(long commandTimeoutNanos) {
			long backstop = this.endsWait ? BACKSTOP_NANOS : 0;
			return Math.min(this.blockNanos + backstop, commandTimeoutNanos / 2);
		}

		/**
		 * Return when, after the attempt's clock reading, the head pokes its own hint, or
		 * -1 for never: a pair whose hint wait is cut short by a quarter of the lease or
		 * by half the command timeout ends with its {@code BLPOP} and is sent again.
		 * @param commandTimeoutNanos the connection's command timeout
		 */
		public long pokeNanos(long commandTimeoutNanos) {
			// Half the command timeout may cut the backstop short, down to none.
			return (this.endsWait && this.blockNanos < blpopNanos(commandTimeoutNanos)) ? this.blockNanos : -1;
		}

	}

	/**
	 * Push the request's hint now ({@code nanos} 0), which makes Redis run the pair's
	 * attempt, or at the latest after {@code nanos}, when the timer's
	 * {@link Waiting#woken} with this ticket says so.
	 */
	public record Poke(long nanos, long ticket) implements Next {
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

	/**
	 * Read which hold the lock is at ({@code peek.lua}, {@code ExclusiveKind.peek}),
	 * still in line, then call {@link Waiting#peeked} with this ticket and the value
	 * read, or {@link Waiting#peekFailed} if the reading failed. A progress-aware waiter
	 * queued behind a quiet head asks for it when its wait runs out (see
	 * {@code docs/design/waiting-and-hand-off.md}, "No reserved: message").
	 */
	public record Peek(long ticket) implements Next {
	}

	/**
	 * The lock is won: hold it with this grant.
	 */
	public record Hold(Grant grant) implements Next {
	}

	/**
	 * The wait time ran out: give up, releasing a grant that came too late, if any.
	 */
	public record GiveUp(@Nullable Grant release) implements Next {
	}

	/**
	 * The acquisition fails with this error.
	 */
	public record Fail(RuntimeException error) implements Next {
	}

	/**
	 * A hold of the lock by another owner in the head's own template, whose release may
	 * grant the head the lock.
	 *
	 * @param signalsBefore the line's signal count, read before the hold was looked up
	 * @param leaseEndNanos when that hold's lease ends by the local clock
	 */
	public record LocalHold(long signalsBefore, long leaseEndNanos) {
	}

	/**
	 * See {@link Next#JOIN_LINE}.
	 */
	record Join() implements Next {
	}

	/**
	 * See {@link Next#NONE}.
	 */
	record None() implements Next {
	}

}
