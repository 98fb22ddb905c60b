package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of one single-lock acquisition, apart from its I/O: what each attempt
 * carries, what a reply means, when the head of a local line tries again, how long it may
 * sleep, and what to undo when the wait ends. It sends nothing, parks nothing and reads
 * time only on the {@link NanoClock} it is given; its drivers do the rest: the blocking
 * {@code WaitLoop} and {@code FairWait} on the caller's thread, the reactive
 * {@code ReactiveAcquisition} on replies and timers, and the simulation on a virtual
 * clock.
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
 * Not thread-safe: a driver calls it from one thread at a time (the reactive driver under
 * its state lock).
 */
public final class Acquisition {

	/**
	 * A timer never sleeps longer than this, so an indefinite wait stays representable.
	 */
	static final long MAX_SLEEP_NANOS = TimeUnit.HOURS.toNanos(1);

	/**
	 * The shortest lease of a waiter that chains: a chained pair's {@code BLPOP} lasts at
	 * most a quarter of the waiter's lease, so a long wait with a shorter one would send
	 * an attempt more often than every 100 ms.
	 */
	static final long MIN_CHAINED_LEASE_MILLIS = 400;

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

	// Whether a release of this JVM granted it the lock while it slept at the head: it
	// waited, even if it never sent an attempt (a head that offered itself first).
	private boolean handedOver;

	/**
	 * @param holdsIt whether the owner holds the lock through a local handle already:
	 * then finding it ours is a re-entry rather than a hold left by a lost reply
	 */
	// Whether its requests are chained ones: see chain().
	private boolean chains;

	public Acquisition(LockSpec spec, String owner, boolean holdsIt, NanoClock clock) {
		this.spec = spec;
		this.owner = owner;
		this.holdsIt = holdsIt;
		this.clock = clock;
		this.deadline = Deadline.start(clock, spec.waitNanos());
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
	 * Return whether a failed attempt was held back by readers, and so may have set a
	 * writer intent.
	 */
	public boolean heldBackByReaders() {
		return this.heldBackByReaders;
	}

	/**
	 * Return when the lock was last seen changing hands, or 0.
	 */
	long lastHandOffNanos() {
		return this.lastHandOffNanos;
	}

	/**
	 * Return whether waiters of this acquisition line up for reservations: its kind hands
	 * the lock over, the template does, and it waits at all.
	 * @param handOff whether the template lines waiters up
	 */
	boolean linesUp(boolean handOff) {
		return handOff && this.spec.kind().handsOver() && !this.deadline.isTryOnce();
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
	 * Forget the attempt last made by {@link #next}, which its driver did not send: a
	 * grant by a release came first ({@link #handedOver}).
	 */
	public void unsent() {
		this.count--;
	}

	/**
	 * Return the attempt that a release of this JVM made for this acquisition by granting
	 * it the lock ({@code hand-over.lua}), to be taken in by {@link #replied} like the
	 * reply to its own attempt: same hold id, and its lease counts from the releaser's
	 * clock reading taken before the hand-over was sent. It counts as one attempt.
	 * @param sentNanos the releaser's clock reading, on this acquisition's clock
	 */
	public Attempt handedOver(long sentNanos) {
		this.handedOver = true;
		this.count++;
		return new Attempt(this.hold, sentNanos, this.deadline.remainingMillis(), false, this.holdsIt, this.request);
	}

	/**
	 * Return whether a waiter in a line may be granted the lock by a release of its JVM
	 * while it sleeps at the head or waits for its turn: a plain lock's waiter (not fair,
	 * not a reader, not a permit, not a poller) that may have set no writer intent. Its
	 * request need not be filed: see
	 * {@link Waiting#promoted(boolean, Waiting.LocalHold)}.
	 */
	public boolean offerable() {
		return !this.chains && !this.heldBackByReaders && this.spec.plainExclusive() && this.spec.waitMode().listens();
	}

	// The chained hint

	/**
	 * Return whether, as the head of a line, it may wait for its reservation in a chained
	 * pair ({@code BLPOP} of its hint key, then its attempt, on a connection of its own):
	 * a waiter that may be offered a local hand-over, holding no hold of the lock already
	 * (a custom owner may hold it in another process), with a lease of at least
	 * {@link #MIN_CHAINED_LEASE_MILLIS} (see {@code docs/design/waiting-and-hand-off.md},
	 * "The chained hint").
	 */
	boolean chainable() {
		return offerable() && !this.holdsIt && !this.deadline.isTryOnce()
				&& this.spec.leaseMillis() >= MIN_CHAINED_LEASE_MILLIS;
	}

	/**
	 * Make the request it files from now on a chained one: it then waits in a chained
	 * pair, and is offered no local hand-over.
	 */
	void chain() {
		this.chains = true;
	}

	/**
	 * Return whether its request is a chained one.
	 */
	public boolean chains() {
		return this.chains;
	}

	/**
	 * Return the hint wait of a chained pair: as long as the head would sleep, and at
	 * most a quarter of its lease, since a hold the pair's attempt grants counts its
	 * lease from before the pair was sent; at least a millisecond.
	 * @param sleepNanos how long the head would sleep ({@link #sleepNanos()}, read once)
	 */
	long hintWaitNanos(long sleepNanos) {
		long quarterLease = TimeUnit.MILLISECONDS.toNanos(this.spec.leaseMillis()) / 4;
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(sleepNanos, quarterLease));
	}

	/**
	 * Take the line's counts as seen, as an attempt does when it is made: a chained head
	 * that pokes its pair on a call to try again needs no second poke for the same call.
	 */
	void heard(WaitLine line) {
		this.seenRetries = line.retrySignals();
		this.seenSignals = line.signals();
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
		boolean hadToWait = waited || this.count > 1 || this.handedOver;
		if (result.acquired() && inTime(sent.sentNanos(), this.spec.leaseMillis(), now)) {
			return new AttemptOutcome.Held(new Grant(this.spec, this.owner, result.token(), this.hold, sent.sentNanos(),
					hadToWait, this.deadline.elapsed(), this.count));
		}
		if (result.acquired()) {
			// Its lease, counted from before the attempt was sent, ended before the reply
			// came (a stall or a pause longer than the lease): no hold the caller could
			// use. The driver sends the attempt again at once, with the same hold id: it
			// finds the hold if Redis still keeps it and grants it with a lease counted
			// anew. Or, if the wait is over, it releases the hold.
			this.lateGrants++;
			return new AttemptOutcome.Late(new Grant(this.spec, this.owner, result.token(), this.hold, sent.sentNanos(),
					hadToWait, this.deadline.elapsed(), this.count));
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
	 * Take in a reading of which hold the lock is at ({@code peek.lua}), made by this
	 * acquisition while it waits for its turn behind a quiet head: a value other than the
	 * holder's token it knows of (its own last reply's, or its line's as
	 * {@link #lineSaw}), or one it cannot compare, counts as a change of hands at the
	 * reading, restarting a progress-aware wait; the same value means no hold began
	 * since.
	 * @param line its line
	 * @param signalsAtJoin the line's signal count when it joined
	 * @param token the value read, or -1 for none
	 */
	void peeked(WaitLine line, long signalsAtJoin, long token) {
		lineSaw(line, signalsAtJoin);
		if (token < 0 || this.lastHolderToken == -1 || token != this.lastHolderToken) {
			changedHands(this.clock.nanoTime());
		}
		if (token >= 0) {
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
		HandOffRequest filing = this.spec.waitMode().request(this.chains);
		this.request = filing;
		return filing;
	}

	public @Nullable HandOffRequest request() {
		return this.request;
	}

	/**
	 * Return whether an attempt has carried a request, which is then filed in Redis.
	 */
	boolean filed() {
		return this.filed;
	}

	// Waiting at the head of a line

	/**
	 * Take the signal count read before an attempt made outside the line, so that the
	 * head sleeps on it; nothing is known of the retry count, so any wake-up leads to an
	 * attempt.
	 */
	void seen(long signals) {
		this.seenSignals = signals;
		this.seenRetries = UNSEEN;
	}

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
	Step whileHead(WaitLine line) {
		restartOnProgress(line.lastProgressNanos());
		if (this.deadline.remainingNanos() <= 0) {
			return Step.GIVE_UP;
		}
		return calledToTry(line) ? Step.TRY : Step.SLEEP;
	}

	/**
	 * Return whether to send the attempt again after a {@link AttemptOutcome.Late} grant:
	 * while wait time is left, and once for a caller that only tries once (its attempt
	 * did take the lock; the second confirms it with a lease it can use).
	 */
	public boolean retriesLateGrant() {
		return this.deadline.remainingNanos() > 0 || (this.deadline.isTryOnce() && this.lateGrants == 1);
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
	 * allows, at most until the request must be filed again, and for a
	 * {@linkplain HandOffRequest#quiet() quiet} one at most a claim.
	 */
	long sleepNanos() {
		long sleep = this.spec.waitMode().capSleep(this.deadline.sleepNanos());
		HandOffRequest filing = this.request;
		if (filing != null && this.count > 0) {
			// Filed again at least this often (once one attempt has filed it).
			sleep = Math.min(sleep, this.lastSentNanos + HandOffRequest.REFILE_NANOS - this.clock.nanoTime());
			if (filing.quiet()) {
				// Its waiter reads the lock again within a claim of deciding to sleep, as
				// a release that reserves it for someone else may tell it nothing.
				sleep = Math.min(sleep, TimeUnit.MILLISECONDS.toNanos(HandOffRequest.CLAIM_MILLIS));
			}
		}
		return Math.max(0, Math.min(sleep, MAX_SLEEP_NANOS));
	}

	/**
	 * Return how long the head sleeps at most, as {@link #sleepNanos()}, and at most
	 * until the given time.
	 */
	long sleepNanos(long untilNanos) {
		return Math.max(0, Math.min(sleepNanos(), untilNanos - this.clock.nanoTime()));
	}

	// The end

	/**
	 * End the acquisition: stop carrying the request, and say what to undo in Redis.
	 * @param held whether it ends holding the lock
	 */
	Ending end(boolean held) {
		HandOffRequest dropped = this.request;
		this.request = null;
		return new Ending(dropped, (dropped != null && this.filed && !held) ? dropped : null,
				!held && this.heldBackByReaders);
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

	/**
	 * What the head of a line does next.
	 */
	enum Step {

		/** Try again now. */
		TRY,

		/**
		 * Sleep until a message or {@link Acquisition#sleepNanos()}, then decide again.
		 */
		SLEEP,

		/** The wait time is over. */
		GIVE_UP

	}

	/**
	 * What to undo once an acquisition ends.
	 *
	 * @param forget the request to stop listening for, or {@code null}
	 * @param withdraw the request to withdraw from the lock's line in Redis (which passes
	 * a reservation for it on), or {@code null}
	 * @param dropIntent whether to drop the writer intent an attempt may have left
	 */
	public record Ending(@Nullable HandOffRequest forget, @Nullable HandOffRequest withdraw, boolean dropIntent) {

	}

}
