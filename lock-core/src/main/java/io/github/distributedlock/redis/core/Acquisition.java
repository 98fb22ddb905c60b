package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of one single-lock acquisition, apart from its I/O: what each attempt
 * carries, what a reply means, when the head of a local line tries again, how long it may
 * sleep, and what to undo at the end. It reads time only on its {@link NanoClock}.
 * <p>
 * The invariant it keeps (see {@code docs/design/waiting-and-hand-off.md}):
 * <ul>
 * <li>Only a reply grants. A message only makes the head try sooner, and a reservation
 * for someone else never makes it sleep past the lease Redis last reported.</li>
 * <li>A lease counts from the clock reading taken before the winning attempt was sent
 * ({@link Attempt#sentNanos()}). A grant whose lease so counted ended before its reply
 * came is no hold: the attempt is sent again at once, or the grant is released if the
 * wait is over.</li>
 * <li>Every attempt carries the same hold id, so one that ran but lost its reply is found
 * by the next, not counted again.</li>
 * <li>Every sleep ends by the time the wait runs out, the holder's last reported lease
 * ends, a poller must poll, or the hand-off request must be filed again.</li>
 * </ul>
 * Not thread-safe: one call at a time (the driver's state lock).
 */
public final class Acquisition {

	/** A timer sleeps at most this, so an indefinite wait stays representable. */
	static final long MAX_SLEEP_NANOS = TimeUnit.HOURS.toNanos(1);

	/** The retry count of a line before the first attempt at its head: always try. */
	private static final long UNSEEN = Long.MIN_VALUE;

	private final LockSpec spec;

	// The caller's owner, or from the attempt that took it on, a cohort's (takeOwner).
	private String owner;

	private boolean ownerTaken;

	// The tokens each attempt asks for: a cohort's block once its owner is taken.
	private int block = 1;

	private final String hold;

	private final boolean holdsIt;

	private final NanoClock clock;

	private final UniqueIds ids;

	private final Deadline deadline;

	private int count;

	private int answered;

	private long lastHolderToken = -1;

	// Whether an attempt was held back by readers, and so may have set a writer intent.
	private boolean heldBackByReaders;

	private long lastHandOffNanos;

	private long lastSentNanos;

	private @Nullable HandOffRequest request;

	private boolean filed;

	// What the head had heard when it last tried: a change calls for another attempt.
	private long seenSignals = -1;

	private long seenRetries = UNSEEN;

	private int lateGrants;

	// The grants in a row that came after their lease had ended, none refused between,
	// and how long the last one's reply took: a lease shorter than a round trip.
	private int lateInARow;

	private long lateRoundTripNanos;

	/**
	 * @param holdsIt whether the owner holds the lock through a local handle already:
	 * then finding it ours is a re-entry, not a hold left by a lost reply
	 * @param ids the port's ids, of the hold and of the hand-off requests
	 */
	public Acquisition(LockSpec spec, String owner, boolean holdsIt, NanoClock clock, UniqueIds ids) {
		this.spec = spec;
		this.owner = owner;
		this.hold = ids.next();
		this.holdsIt = holdsIt;
		this.clock = clock;
		this.ids = ids;
		this.deadline = new Deadline(clock, spec.waitNanos(), clock.nanoTime());
	}

	public LockSpec spec() {
		return this.spec;
	}

	/** Return the owner the next attempt carries, and the last one carried. */
	public String owner() {
		return this.owner;
	}

	/**
	 * Carry another owner from the next attempt on, for the rest of the acquisition, as a
	 * cohort's opening does (docs/design/cohorting.md, rule 1); only if nothing in Redis
	 * can be in the current owner's name: every attempt so far was answered, and refused,
	 * none was held back by readers (which may have set a writer intent in its name), and
	 * the owner holds no handle on the lock.
	 * @param block the tokens every later attempt asks for (rule 2)
	 * @return whether the owner was taken
	 */
	public boolean takeOwner(String cohortOwner, int block) {
		if (this.ownerTaken || this.holdsIt || this.heldBackByReaders || this.answered != this.count
				|| this.lateGrants > 0) {
			return false;
		}
		this.owner = cohortOwner;
		this.ownerTaken = true;
		this.block = block;
		return true;
	}

	public String hold() {
		return this.hold;
	}

	public boolean holdsIt() {
		return this.holdsIt;
	}

	public Deadline deadline() {
		return this.deadline;
	}

	long clockNanos() {
		return this.clock.nanoTime();
	}

	/** Return when the lock was last seen changing hands, or 0. */
	long lastHandOffNanos() {
		return this.lastHandOffNanos;
	}

	/**
	 * Return whether an acquisition's waiters line up for reservations.
	 * @param handOff whether the template lines waiters up
	 * @param spec the lock (the first, for several)
	 */
	static boolean linesUp(boolean handOff, LockSpec spec, Deadline deadline) {
		return handOff && spec.kind().handsOver() && !deadline.isTryOnce();
	}

	/**
	 * Count the next attempt and say what it carries; its clock reading is taken now,
	 * before it is sent.
	 * @param line the line whose head makes it, or {@code null} if not at a head
	 */
	public Attempt next(@Nullable WaitLine line) {
		if (line != null) {
			// In this order: a retry landing in between is seen twice, never missed.
			this.seenRetries = line.retrySignals();
			this.seenSignals = line.signals();
		}
		this.count++;
		// Any earlier attempt held back by readers, not only the last: one that found
		// another writer since does not drop the intent.
		boolean mayHaveIntent = this.heldBackByReaders;
		this.filed |= this.request != null;
		this.lastSentNanos = this.clock.nanoTime();
		return new Attempt(this.owner, this.hold, this.lastSentNanos, this.deadline.remainingMillis(), mayHaveIntent,
				this.holdsIt, this.request, this.block);
	}

	/**
	 * Take in the reply to an attempt.
	 * @param waited whether the caller waited for a reason the count of attempts doesn't
	 * show (another waiter had the turn first)
	 * @return what it means; for an OVER the driver builds the timeout
	 */
	public AttemptOutcome replied(Attempt sent, AcquireResult result, boolean waited) {
		long now = this.clock.nanoTime();
		this.answered++;
		boolean hadToWait = waited || this.count > 1;
		if (result.acquired()) {
			Grant grant = new Grant(this.spec, sent.owner(), result.token(), this.hold, sent.sentNanos(), hadToWait,
					this.deadline.elapsed(), this.count);
			if (inTime(sent.sentNanos(), this.spec.leaseMillis(), now)) {
				return new AttemptOutcome.Held(grant);
			}
			// Its lease ended before the reply came: no hold (see the invariant above).
			this.lateGrants++;
			this.lateInARow++;
			this.lateRoundTripNanos = now - sent.sentNanos();
			return new AttemptOutcome.Late(grant);
		}
		this.lateInARow = 0;
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
	 * Take the holder's token its line saw ({@link WaitLine#holderTokenAt}) while this
	 * acquisition has seen none of its own: a first reply naming another then shows the
	 * lock changed hands though no message told the line (a head before it left and this
	 * JVM had no request in Redis's line, or the holder's lease ended).
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
	 * Return whether a grant's reply came within its lease, counted from before its
	 * attempt was sent: one that came later is no hold. So is a hold that
	 * {@code findHeld} reads.
	 */
	public static boolean inTime(long sentNanos, long leaseMillis, long repliedNanos) {
		return repliedNanos - (sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis)) < 0;
	}

	/** Record a change of hands; a progress-aware wait starts its time again. */
	private void changedHands(long nanos) {
		this.lastHandOffNanos = nanos;
		if (this.spec.progressAware()) {
			this.deadline.restartAt(nanos);
		}
	}

	/** Carry a new hand-off request in the next attempts (a line's head does). */
	HandOffRequest fileRequest() {
		HandOffRequest filing = this.spec.waitMode().request(this.ids);
		this.request = filing;
		return filing;
	}

	public @Nullable HandOffRequest request() {
		return this.request;
	}

	/** Return whether it carries a cohort's owner ({@link #takeOwner}). */
	boolean ownerTaken() {
		return this.ownerTaken;
	}

	/** Return whether an attempt carried a hand-off request, which Redis may keep. */
	boolean filed() {
		return this.filed;
	}

	/** Return how many attempts were sent. */
	int attempts() {
		return this.count;
	}

	/** Return the signal count the head last saw, to sleep on until it changes. */
	public long seenSignals() {
		return this.seenSignals;
	}

	/**
	 * Decide what the head of a line does next, after a failed attempt or a wake-up: give
	 * up if the wait time is over (after a progress-aware restart), try if a message
	 * since the last attempt calls for it, else sleep.
	 */
	HeadStep whileHead(WaitLine line) {
		restartOnProgress(line.lastProgressNanos());
		if (this.deadline.remainingNanos() <= 0) {
			return HeadStep.GIVE_UP;
		}
		return calledToTry(line) ? HeadStep.TRY : HeadStep.SLEEP;
	}

	/** Return whether to send again after a late grant (see {@link Deadline}). */
	public boolean retriesLateGrant() {
		return this.deadline.retriesLateGrant(this.lateGrants);
	}

	/**
	 * Return whether the messages heard since the last attempt call for another: any but
	 * reservations for others, which are only a hint (the claim may end before the lease
	 * Redis told of) and are marked seen.
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
			this.deadline.holderMayEndSooner(last.claimMillis(), last.receivedNanos());
		}
		this.seenSignals = line.signals();
		// A reservation for us may have landed since the check above: the count just
		// read includes it, so only the retry count can still tell.
		return line.retrySignals() != this.seenRetries;
	}

	/**
	 * Restart a progress-aware wait from when the lock last changed hands (0 for never),
	 * if that moves its deadline later; return whether it did.
	 */
	boolean restartOnProgress(long progressNanos) {
		return this.spec.progressAware() && progressNanos != 0 && this.deadline.restartIfLater(progressNanos);
	}

	/** Return how long the head sleeps at most (see the invariant above). */
	long sleepNanos() {
		long sleep = this.spec.waitMode().capSleep(this.deadline.sleepNanos());
		HandOffRequest filing = this.request;
		if (filing != null && this.count > 0) {
			// Once filed: try within half a claim of the last attempt, which refiles it.
			sleep = Math.min(sleep, this.lastSentNanos + filing.retryNanos() - this.clock.nanoTime());
		}
		return Math.max(0, Math.min(sleep, MAX_SLEEP_NANOS));
	}

	/** End the acquisition: stop carrying the request, and say what to undo in Redis. */
	WaitEnding end(boolean held) {
		HandOffRequest dropped = this.request;
		this.request = null;
		return new WaitEnding(dropped, dropped != null && this.filed && !held, !held && this.heldBackByReaders);
	}

	/**
	 * Build the exception for a wait that ran out; the line's sighting is reported if no
	 * attempt of this acquisition saw the holder.
	 */
	public LockTimeoutException timeout(@Nullable HolderSighting line) {
		if (this.lateInARow == 0) {
			return this.deadline.timeout(this.spec.name(), line);
		}
		// Granted each time, but never in time: say so, not what is known of a holder.
		return new LockTimeoutException(this.spec.name(), this.deadline.elapsed(), null,
				grantedTooLate(this.lateInARow, this.spec.leaseMillis(), this.lateRoundTripNanos));
	}

	/**
	 * Say why a wait that ended with grants too late to use took no lock. One such grant
	 * may come of a stall; several in a row, of a lease shorter than a round trip.
	 */
	static String grantedTooLate(int inARow, long leaseMillis, long lastRoundTripNanos) {
		long took = TimeUnit.NANOSECONDS.toMillis(lastRoundTripNanos);
		if (inARow == 1) {
			return "Redis granted it, but the reply came after its lease of " + leaseMillis + " ms had ended (it took "
					+ took + " ms)";
		}
		return "Redis granted it " + inARow + " times in a row, but each reply came after its lease of " + leaseMillis
				+ " ms had ended (the last took " + took + " ms): give it a lease longer than a round trip to Redis";
	}

	/**
	 * What one attempt carries besides the lock, which the acquire script takes.
	 *
	 * @param owner the owner it acquires for ({@link #takeOwner})
	 * @param hold the id of the hold this acquisition takes, the same for each of its
	 * attempts, so that an attempt whose reply was lost is found, not counted again
	 * @param sentNanos the clock reading before it is sent
	 * @param remainingWaitMillis how long the caller will keep waiting (-1 indefinitely),
	 * so that a writer announces itself to readers only for that long
	 * @param mayHaveIntent whether an earlier attempt was held back by readers, and so
	 * may have left a writer intent
	 * @param holdsIt whether the caller already holds the lock, so that finding it ours
	 * is a re-entry rather than a hold left by a lost reply
	 * @param request the caller's request, keeping its place in the line, or {@code null}
	 * @param block the tokens it asks for: more than 1 only for a cohort's opening
	 */
	public record Attempt(String owner, String hold, long sentNanos, long remainingWaitMillis, boolean mayHaveIntent,
			boolean holdsIt, @Nullable HandOffRequest request, int block) {

	}

}
