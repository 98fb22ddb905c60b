package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of one single-lock acquisition, apart from its I/O: what each attempt
 * carries, what a reply means, when the head of a local line tries again, how long it may
 * sleep, and what to undo when the wait ends. It sends nothing, parks nothing and reads
 * time only on the {@link NanoClock} it is given; the driver does the rest, for both
 * templates ({@code SingleAcquisition}, {@code FairAcquisition}, on replies and timers),
 * and the simulation on a virtual clock.
 * <p>
 * The invariant it keeps (see {@code docs/design/waiting-and-hand-off.md}):
 * <ul>
 * <li>Only a reply grants. A message is a hint that makes the head try sooner, never a
 * reason to hold, and a reservation for someone else never makes it sleep past the lease
 * Redis last reported.</li>
 * <li>A hold's lease is counted from the clock reading taken before the attempt that won
 * it was sent ({@link Attempt#sentNanos()}). A grant whose lease so counted ended before
 * its reply came is no hold: the attempt is sent again at once, with the same hold id, or
 * the grant is released if the wait is over.</li>
 * <li>Every attempt carries the same hold id, so an attempt that ran but whose reply was
 * lost is found by the next one rather than counted again.</li>
 * <li>Every sleep ends at the latest when the wait time runs out, when the holder's lease
 * (as last reported) ends, when a poller must poll, and when the hand-off request must be
 * filed again.</li>
 * </ul>
 * Not thread-safe: a driver calls it from one thread at a time (the driver under its
 * state lock).
 */
public final class Acquisition {

	/**
	 * A timer never sleeps longer than this, so an indefinite wait stays representable.
	 */
	static final long MAX_SLEEP_NANOS = TimeUnit.HOURS.toNanos(1);

	/** The retry count of a line before the first attempt at its head: always try. */
	private static final long UNSEEN = Long.MIN_VALUE;

	private final LockSpec spec;

	private final String owner;

	// The hold this acquisition takes: the same id in every attempt.
	private final String hold = UniqueIds.next();

	private final boolean holdsIt;

	private final NanoClock clock;

	private final Deadline deadline;

	private int count;

	private long lastHolderToken = -1;

	// Whether a failed attempt was held back by readers, and so may have set a writer
	// intent.
	private boolean heldBackByReaders;

	private long lastHandOffNanos;

	private long lastSentNanos;

	private @Nullable HandOffRequest request;

	private boolean filed;

	// What the head had heard when it last tried: a change calls for another attempt.
	private long seenSignals = -1;

	private long seenRetries = UNSEEN;

	// How many replies granted a hold whose lease had ended when they came.
	private int lateGrants;

	/**
	 * @param holdsIt whether the owner holds the lock through a local handle already:
	 * then finding it ours is a re-entry rather than a hold left by a lost reply
	 */
	public Acquisition(LockSpec spec, String owner, boolean holdsIt, NanoClock clock) {
		this.spec = spec;
		this.owner = owner;
		this.holdsIt = holdsIt;
		this.clock = clock;
		this.deadline = new Deadline(clock, spec.waitNanos(), clock.nanoTime());
	}

	public LockSpec spec() {
		return this.spec;
	}

	public String owner() {
		return this.owner;
	}

	/**
	 * Return the id of the hold this acquisition takes.
	 */
	public String hold() {
		return this.hold;
	}

	public boolean holdsIt() {
		return this.holdsIt;
	}

	public Deadline deadline() {
		return this.deadline;
	}

	/**
	 * Return the time now, on the acquisition's clock.
	 */
	long clockNanos() {
		return this.clock.nanoTime();
	}

	/**
	 * Return when the lock was last seen changing hands, or 0.
	 */
	long lastHandOffNanos() {
		return this.lastHandOffNanos;
	}

	/**
	 * Return whether the waiters of an acquisition line up for reservations: the lock's
	 * kind hands the lock over, the template does, and it waits at all.
	 * @param handOff whether the template lines waiters up
	 * @param spec the lock (the first, for several)
	 */
	static boolean linesUp(boolean handOff, LockSpec spec, Deadline deadline) {
		return handOff && spec.kind().handsOver() && !deadline.isTryOnce();
	}

	// Attempts

	/**
	 * Count the next attempt and say what it carries; its clock reading is taken now,
	 * before it is sent.
	 * @param line the line whose head makes it, to take what it heard so far, or
	 * {@code null} if not at the head of one
	 */
	public Attempt next(@Nullable WaitLine line) {
		if (line != null) {
			// In this order: a call to try again that lands in between is then seen twice
			// (one attempt too many), never missed.
			this.seenRetries = line.retrySignals();
			this.seenSignals = line.signals();
		}
		this.count++;
		// Any earlier failed attempt with token 0, not only the last: one that found
		// another writer since does not drop the intent.
		boolean mayHaveIntent = this.heldBackByReaders;
		this.filed |= this.request != null;
		this.lastSentNanos = this.clock.nanoTime();
		return new Attempt(this.hold, this.lastSentNanos, this.deadline.remainingMillis(), mayHaveIntent, this.holdsIt,
				this.request);
	}

	/**
	 * Take in the reply to an attempt.
	 * @param waited whether the caller waited before this attempt for a reason the count
	 * of attempts doesn't show (another waiter had the turn first)
	 * @return what the reply means: held, granted too late to use, a self-deadlock, over
	 * (a try-once that found the lock taken; the driver builds the timeout it reports),
	 * or wait
	 */
	public AttemptOutcome replied(Attempt sent, AcquireResult result, boolean waited) {
		long now = this.clock.nanoTime();
		boolean hadToWait = waited || this.count > 1;
		if (result.acquired()) {
			Grant grant = new Grant(this.spec, this.owner, result.token(), this.hold, sent.sentNanos(), hadToWait,
					this.deadline.elapsed(), this.count);
			if (inTime(sent.sentNanos(), this.spec.leaseMillis(), now)) {
				return new AttemptOutcome.Held(grant);
			}
			// Its lease, counted from before the attempt was sent, ended before the reply
			// came (a stall or a pause longer than the lease): no hold the caller could
			// use. The driver sends the attempt again at once, with the same hold id: it
			// finds the hold if Redis still keeps it and grants it with a lease counted
			// anew. Or, if the wait is over, it releases the hold.
			this.lateGrants++;
			return new AttemptOutcome.Late(grant);
		}
		if (this.lastHolderToken != -1 && this.lastHolderToken != result.token()) {
			changedHands(now);
		}
		this.lastHolderToken = result.token();
		this.heldBackByReaders |= result.token() == 0 && this.spec.kind().setsWriterIntent();
		this.deadline.holderSeen(result.holderTtlMillis(), now);
		if (result.selfDeadlock()) {
			return new AttemptOutcome.Failed(new LockSelfDeadlockException(this.spec.name()));
		}
		return this.deadline.isTryOnce() ? AttemptOutcome.OVER : AttemptOutcome.WAIT;
	}

	/**
	 * Take the token its line saw as the holder this acquisition knows of, if it has seen
	 * none of its own ({@link WaitLine#holderTokenAt}): a head whose first reply names
	 * another then knows that the lock changed hands during its wait, though no message
	 * told its line (a head before it left, and this JVM had no request in Redis's line
	 * to be told of reservations, or the holder's lease ended). Looked up only while it
	 * has none: once it has, every reply is compared with its own.
	 * @param line its line
	 * @param signalsAtJoin the line's signal count when it joined
	 */
	void lineSaw(WaitLine line, long signalsAtJoin) {
		if (this.lastHolderToken != -1) {
			return;
		}
		Long token = line.holderTokenAt(this.deadline.startNanos(), signalsAtJoin);
		if (token != null) {
			this.lastHolderToken = token;
		}
	}

	/**
	 * Return whether a grant's reply came within its lease, counted from the clock
	 * reading taken before its attempt was sent: one that came later is no hold.
	 */
	static boolean inTime(long sentNanos, long leaseMillis, long repliedNanos) {
		return repliedNanos - (sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis)) < 0;
	}

	/**
	 * Record that the lock changed hands; a progress-aware wait starts its time again.
	 */
	private void changedHands(long nanos) {
		this.lastHandOffNanos = nanos;
		if (this.spec.progressAware()) {
			this.deadline.restartAt(nanos);
		}
	}

	// The hand-off request

	/**
	 * Carry a new hand-off request in the following attempts (the head of a line does).
	 */
	HandOffRequest fileRequest() {
		HandOffRequest filing = this.spec.waitMode().request();
		this.request = filing;
		return filing;
	}

	public @Nullable HandOffRequest request() {
		return this.request;
	}

	// Waiting at the head of a line

	/**
	 * Return the signal count the head last saw, to sleep on until it changes.
	 */
	public long seenSignals() {
		return this.seenSignals;
	}

	/**
	 * Decide what the head of a line does next, after a failed attempt or a wake-up: give
	 * up if the wait time is over (restarted first if the lock changed hands and the wait
	 * is progress-aware), try again if a message since the last attempt calls for it, or
	 * else sleep for at most {@link #sleepNanos()}.
	 */
	HeadStep whileHead(WaitLine line) {
		restartOnProgress(line.lastProgressNanos());
		if (this.deadline.remainingNanos() <= 0) {
			return HeadStep.GIVE_UP;
		}
		return calledToTry(line) ? HeadStep.TRY : HeadStep.SLEEP;
	}

	/**
	 * Return whether to send the attempt again after a {@link AttemptOutcome.Late} grant,
	 * as {@link Deadline#retriesLateGrant(int)} says.
	 */
	public boolean retriesLateGrant() {
		return this.deadline.retriesLateGrant(this.lateGrants);
	}

	/**
	 * Return whether the messages heard since the last attempt call for another: any
	 * message but reservations for other waiters, after which the lock is taken again.
	 * Reservations alone are taken as a hint (the claim may end before the lease Redis
	 * told us of) and marked seen.
	 */
	boolean calledToTry(WaitLine line) {
		if (line.signals() == this.seenSignals) {
			return false;
		}
		if (line.retrySignals() != this.seenRetries) {
			return true;
		}
		WaitLine.Reservation last = line.lastReservation();
		if (last != null) {
			changedHands(last.receivedNanos());
			// A hint: it may make us try sooner, never later than the lease Redis told
			// us of.
			this.deadline.holderMayEndSooner(last.claimMillis(), last.receivedNanos());
		}
		this.seenSignals = line.signals();
		// A reservation for us (a call to try again) may have landed since the check
		// above: the count just read includes it, so only the retry count can still tell.
		return line.retrySignals() != this.seenRetries;
	}

	/**
	 * Restart a progress-aware wait time from when the lock last changed hands, if that
	 * is later than its start.
	 * @param progressNanos when the lock last changed hands, or 0
	 * @return whether the deadline moved
	 */
	boolean restartOnProgress(long progressNanos) {
		return this.spec.progressAware() && progressNanos != 0 && this.deadline.restartIfLater(progressNanos);
	}

	/**
	 * Return how long the head sleeps at most before trying again: until the wait time
	 * runs out or the holder's lease (as last reported) ends, at most as the wait mode
	 * allows, and at most half the claim of a request it filed
	 * ({@link HandOffRequest#retryNanos()}).
	 */
	long sleepNanos() {
		long sleep = this.spec.waitMode().capSleep(this.deadline.sleepNanos());
		HandOffRequest filing = this.request;
		if (filing != null && this.count > 0) {
			// Once an attempt filed it: tried again within half a claim of the last
			// attempt, which also files it again.
			sleep = Math.min(sleep, this.lastSentNanos + filing.retryNanos() - this.clock.nanoTime());
		}
		return Math.max(0, Math.min(sleep, MAX_SLEEP_NANOS));
	}

	// The end

	/**
	 * End the acquisition: stop carrying the request, and say what to undo in Redis.
	 * @param held whether it ends holding the lock
	 */
	WaitEnding end(boolean held) {
		HandOffRequest dropped = this.request;
		this.request = null;
		return new WaitEnding(dropped, dropped != null && this.filed && !held, !held && this.heldBackByReaders);
	}

	/**
	 * Build the exception for a wait that ran out.
	 * @param line the latest sighting of the holder by the waiter's local line, reported
	 * if no attempt of this acquisition saw it
	 */
	public LockTimeoutException timeout(@Nullable HolderSighting line) {
		return this.deadline.timeout(this.spec.name(), line);
	}

	/**
	 * What one attempt carries.
	 *
	 * @param hold the id of the hold it takes
	 * @param sentNanos the clock reading before it is sent
	 * @param remainingWaitMillis the wait time left, -1 for indefinitely
	 * @param mayHaveIntent whether an earlier attempt may have left a writer intent
	 * @param holdsIt whether the owner holds the lock through a local handle already
	 * @param request the hand-off request it files, or {@code null}
	 */
	public record Attempt(String hold, long sentNanos, long remainingWaitMillis, boolean mayHaveIntent, boolean holdsIt,
			@Nullable HandOffRequest request) {

	}

}
