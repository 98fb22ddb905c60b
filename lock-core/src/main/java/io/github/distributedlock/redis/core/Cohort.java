package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The decisions of one cohort, apart from its I/O: the holds a JVM passes one Redis hold
 * to in memory, each with the next token of the block the hold reserved
 * (docs/design/cohorting.md). It says whether the hold may pass at a release (rule 4's
 * checks on the releasing side), and which token the next holder shows. It reads time
 * only as given. Thread-safe: a line tells it of a loss on its own thread.
 */
public class Cohort {

	/**
	 * A cohort opens only under a lease at least this many times its time limit, so that
	 * a passed hold has at least two thirds of its lease left (rule 6).
	 */
	public static final int LEASE_PER_TIME_LIMIT = 3;

	private final long number;

	private final String owner;

	private final long firstToken;

	private final int block;

	private final long openedNanos;

	private final long timeLimitNanos;

	private final LeaseEnd leaseEnd;

	private int holders = 1;

	private int reentriesInFlight;

	private boolean ended;

	private boolean lossHeard;

	// The caller (its own owner, not the cohort's) that holds the lock now, or null once
	// its last local hold went (rule 7); and the token it shows.
	private @Nullable String holder;

	private long shownToken;

	// The holder's live local holds: the passed or opening one, and its re-entries.
	private int localHolds = 1;

	// The id of the local line whose head opened it, which its end wakes.
	private @Nullable String line;

	/**
	 * @param number the cohort's number in its template, which its end signal carries
	 * @param owner the cohort owner Redis records (rule 1)
	 * @param firstToken the token Redis granted the opening hold, the block's first
	 * @param block how many tokens Redis granted from it (rule 2)
	 * @param openedNanos when the opening attempt was sent
	 * @param leaseEnd the opening hold's lease end, which every holder shares (rule 6)
	 */
	public Cohort(long number, String owner, long firstToken, int block, long openedNanos, long timeLimitNanos,
			LeaseEnd leaseEnd) {
		this.number = number;
		this.owner = owner;
		this.firstToken = firstToken;
		this.block = block;
		this.openedNanos = openedNanos;
		this.timeLimitNanos = timeLimitNanos;
		this.leaseEnd = leaseEnd;
		this.shownToken = firstToken;
	}

	public long number() {
		return this.number;
	}

	public String owner() {
		return this.owner;
	}

	public LeaseEnd leaseEnd() {
		return this.leaseEnd;
	}

	/** Return when its opening attempt was sent. */
	public long openedNanos() {
		return this.openedNanos;
	}

	public synchronized boolean isEnded() {
		return this.ended;
	}

	/** Return the token Redis records for the cohort's hold, the block's first. */
	public long firstToken() {
		return this.firstToken;
	}

	/**
	 * Name the caller that opened the cohort as its holder, before its grant completes.
	 * @param caller the caller's own owner
	 * @param line the id of the local line it waited in, or {@code null}
	 */
	public synchronized void openedBy(String caller, @Nullable String line) {
		this.holder = caller;
		this.line = line;
	}

	/** Return the id of the local line whose head opened the cohort, or {@code null}. */
	public synchronized @Nullable String line() {
		return this.line;
	}

	/**
	 * Return whether the caller holds the cohort's hold now: its re-entries then go under
	 * the cohort's owner (rule 7).
	 */
	public synchronized boolean isHeldBy(String caller) {
		return caller.equals(this.holder);
	}

	/**
	 * Start a re-entry of the caller under the cohort's owner, if it holds the cohort
	 * now: the check and the count in one step, so that no pass falls between them (rule
	 * 7). Followed by {@link #reentered} or {@link #reentryEnded}.
	 * @return whether it holds the cohort, and so re-enters it
	 */
	public synchronized boolean tryReenter(String caller) {
		if (!reentersAs(caller, this.holder)) {
			return false;
		}
		this.reentriesInFlight++;
		return true;
	}

	/**
	 * A re-entry was granted the cohort's hold: one more local hold of the holder,
	 * counted in the same step as the re-entry's end, so that no release in between takes
	 * the other hold for the last.
	 */
	public synchronized void reentered() {
		if (this.reentriesInFlight == 0) {
			this.ended = true;
			return;
		}
		this.reentriesInFlight--;
		this.localHolds++;
	}

	/**
	 * A hold of the holder is being released: count it out if others are left, or say it
	 * is the last, which passes or ends the cohort. The last one leaves the cohort
	 * without a holder in the same step, so that no re-entry starts under its owner
	 * between this and the pass or the release through Redis: one would add a hold to a
	 * cohort that the release may then end and forget.
	 * @return whether it is the holder's last local hold
	 */
	public synchronized boolean releasing() {
		if (this.localHolds > 1 || this.reentriesInFlight > 0) {
			// Another hold is left, or may be about to be: a re-entry in flight.
			this.localHolds = Math.max(0, this.localHolds - 1);
			return false;
		}
		this.holder = null;
		return true;
	}

	/** Return the token the current holder shows, which its re-entries show too. */
	public synchronized long shownToken() {
		return this.shownToken;
	}

	/** The holder's last local hold went through Redis: nobody holds the cohort now. */
	public synchronized void holderLeft() {
		this.holder = null;
		this.localHolds = 0;
		this.ended = true;
	}

	/** Return how many holders the cohort had, the opening one included. */
	public synchronized int holders() {
		return this.holders;
	}

	/**
	 * Return why the hold may not pass at the release of its last local hold, or
	 * {@link Refusal#NONE} if it may (rule 4, the releasing side's checks).
	 * @param minimumHoldLeftMillis what is left of the releasing hold's minimum hold
	 */
	public synchronized Refusal mayPass(long nowNanos, long minimumHoldLeftMillis) {
		if (this.lossHeard) {
			return Refusal.LOSS_HEARD;
		}
		if (this.ended) {
			return Refusal.ENDED;
		}
		if (blockUsed(this.holders, this.block)) {
			return Refusal.BLOCK_USED;
		}
		if (pastTimeLimit(nowNanos - this.openedNanos, this.timeLimitNanos)) {
			return Refusal.TIME_LIMIT;
		}
		if (this.leaseEnd.nanos() - nowNanos <= 0) {
			return Refusal.LEASE_OVER;
		}
		if (this.reentriesInFlight > 0 || this.localHolds != 1) {
			return Refusal.REENTRY_IN_FLIGHT;
		}
		if (minimumHoldLeftMillis > 0) {
			return Refusal.MINIMUM_HOLD;
		}
		return Refusal.NONE;
	}

	/**
	 * Pass the hold to the next holder if every check of {@link #mayPass} still holds
	 * now, in one step with them, so that no pause between a check and the hand-over can
	 * take a pass past the time limit or past a loss (rule 4). The caller reads
	 * {@code nowNanos} under the receiving head's state lock, where the hand-over
	 * happens.
	 * @param next the caller that takes the hold, its own owner: its holder from now on,
	 * so that the releasing caller's next acquisition is no re-entry
	 * @return the next holder's token (the block's next, rule 2), or why there is none
	 */
	public synchronized Pass pass(long nowNanos, long minimumHoldLeftMillis, String next) {
		Refusal refusal = mayPass(nowNanos, minimumHoldLeftMillis);
		if (refusal != Refusal.NONE) {
			return new Pass(refusal, 0);
		}
		this.holders++;
		this.holder = next;
		this.shownToken = passedToken(this.holders);
		passed(nowNanos);
		return new Pass(Refusal.NONE, this.shownToken);
	}

	/**
	 * Pass the hold to the head of the line that sleeps under this cohort (rule 4, the
	 * receiving side): only for the same kind, reentrancy, lease and watchdog as the
	 * releasing hold, within the head's wait time, and while the lease end lasts by the
	 * clock read now; then {@link #pass}, with that reading. Called with the head's state
	 * lock, where the hand-over happens.
	 * @param to the head's acquisition
	 * @param releasing the grant of the hold released under the cohort: its owner, hold
	 * id and tokens are the Redis hold's
	 * @param minimumHoldLeftMillis what is left of the releasing hold's minimum hold
	 * @return a grant of the Redis hold with the block's next token, or {@code null}
	 */
	public @Nullable Grant passTo(Acquisition to, Grant releasing, long minimumHoldLeftMillis) {
		LockSpec spec = to.spec();
		LockSpec held = releasing.spec();
		if (!releasing.owner().equals(owner()) || held.kind() != spec.kind() || held.reentrant() != spec.reentrant()
				|| held.leaseMillis() != spec.leaseMillis() || held.autoRenew() != spec.autoRenew()) {
			return null;
		}
		long now = to.clockNanos();
		// Checks the lease end too, with the same reading.
		Pass pass = (to.deadline().remainingNanos(now) > 0) ? pass(now, minimumHoldLeftMillis, to.owner()) : null;
		if (pass == null || !pass.passed()) {
			return null;
		}
		// The send that the lease end implies, as if this holder had won it.
		long sentNanos = leaseEnd().nanos() - TimeUnit.MILLISECONDS.toNanos(spec.leaseMillis());
		return new Grant(spec, releasing.owner(), releasing.token(), releasing.hold(), sentNanos, true,
				to.deadline().elapsed(), to.attempts(), pass.token(), this);
	}

	// The rules below are methods so that the simulation's tests can plant a bug into
	// each of them, in a subclass (PlantedCohortBugs), and show that the checks find it.

	/** Rule 7: only the holder re-enters under the cohort's owner. */
	boolean reentersAs(String caller, @Nullable String holder) {
		return caller.equals(holder);
	}

	/** Rule 2: a pass takes the block's next token, and none past the block. */
	boolean blockUsed(int holders, int block) {
		return holders >= block;
	}

	/** Rule 4: no pass once the cohort is older than its time limit. */
	boolean pastTimeLimit(long ageNanos, long timeLimitNanos) {
		return ageNanos >= timeLimitNanos;
	}

	/** Rule 2: the token the holder of a pass shows, the block's next. */
	long passedToken(int holders) {
		return this.firstToken + holders - 1;
	}

	/** Rule 6: a pass writes nothing, and so does not lengthen the shared lease. */
	void passed(long nowNanos) {
	}

	/**
	 * Note the end of a re-entry attempt. One without a reply may still add a hold, so it
	 * stops every further pass.
	 * @param answered whether Redis replied
	 */
	public synchronized void reentryEnded(boolean answered) {
		if (this.reentriesInFlight == 0) {
			// An end with no send: the count can no longer be trusted.
			this.ended = true;
			return;
		}
		this.reentriesInFlight--;
		if (!answered) {
			this.ended = true;
		}
	}

	/**
	 * Return whether the holder has no local hold left under the cohort, nor a re-entry
	 * in flight: then nothing routes to it any more, and it may be forgotten.
	 */
	public synchronized boolean isUnheld() {
		return this.localHolds == 0 && this.reentriesInFlight == 0;
	}

	/** End the cohort: no further pass (rules 8 and 9). */
	public synchronized void end() {
		this.ended = true;
	}

	/**
	 * A line of the lock heard that the hold may be gone without a release, or may have
	 * missed it: no further pass (rules 4 and 8).
	 */
	public synchronized void lost() {
		this.lossHeard = true;
		this.ended = true;
	}

	/**
	 * What {@link #pass} did.
	 *
	 * @param refusal {@link Refusal#NONE} if it passed
	 * @param token the next holder's token, if it passed
	 */
	public record Pass(Refusal refusal, long token) {

		public boolean passed() {
			return this.refusal == Refusal.NONE;
		}

	}

	/** Why a hold may not pass in memory. */
	public enum Refusal {

		/** It may pass. */
		NONE,

		/** The cohort ended: a loss, a re-entry without a reply, the template closing. */
		ENDED,

		/** Every token of the block was handed out. */
		BLOCK_USED,

		/** The time limit since the opening attempt was sent has passed. */
		TIME_LIMIT,

		/** The lease is over by the local clock. */
		LEASE_OVER,

		/**
		 * A re-entry of the holder is in flight, or another of its local holds is left.
		 */
		REENTRY_IN_FLIGHT,

		/**
		 * A minimum hold of the releasing hold is left: an earlier holder passed none.
		 */
		MINIMUM_HOLD,

		/**
		 * A line of the lock heard a forced release, a key gone, or a gap in its
		 * subscription.
		 */
		LOSS_HEARD

	}

}
