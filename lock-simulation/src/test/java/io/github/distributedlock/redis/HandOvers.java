package io.github.distributedlock.redis;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * The hand-off inside one JVM ({@code hand-over.lua},
 * docs/design/waiting-and-hand-off.md, "Hand-off inside one JVM") as the engine is to
 * send it: whether a run hands over, with which local limit, the releaser's pauses
 * between its clock reading and the send, and what the hand-overs did. Drawn from a PRNG
 * of its own, so that a run that does not hand over is the run it was before hand-overs
 * came.
 * <p>
 * It also holds the hand-overs to the limit the design promises, apart from the script's
 * own count: while a request waits in the lock's line, at most {@code limit} grants in a
 * row (no hold taken by an acquire script between them) may pass it by.
 */
final class HandOvers {

	/**
	 * The local limits a run draws from: the tightest, two small ones, and one so large
	 * that it never refuses.
	 */
	static final int[] LIMITS = { 1, 2, 4, 1_000 };

	private final SimulationRandom random;

	// The offer before the first attempt is drawn from a PRNG of its own, so that the
	// runs that hand over without it draw what they drew before it came.
	private final SimulationRandom offerRandom;

	private final boolean drawn;

	private final boolean offersFirst;

	// Whether a run that draws no hand-overs hands over all the same, its heads offering
	// first, where a queued waiter may be offered (drawn from a PRNG of its own, so that
	// the other runs draw what they drew before it came).
	private final boolean forQueuedOffers;

	private final int limit;

	private final int[] counts = new int[Counted.values().length];

	// The token the last granting run gave, and how many grants each request in the line
	// has waited through since the last hold an acquire script took.
	private long lastGranted = -1;

	private final Map<String, Integer> passedBy = new HashMap<>();

	private int mostPassedBy;

	HandOvers(long seed) {
		this.random = new SimulationRandom(seed ^ 0x68616e64L);
		this.drawn = this.random.nextInt(2) == 0;
		this.limit = LIMITS[this.random.nextInt(LIMITS.length)];
		this.offerRandom = new SimulationRandom(seed ^ 0x6f666672L);
		this.offersFirst = this.offerRandom.nextInt(2) == 0;
		this.forQueuedOffers = !this.drawn && new SimulationRandom(seed ^ 0x71756575L).nextInt(2) == 0;
	}

	/**
	 * Return whether the run hands over, where its clients can (drawn in half of the
	 * runs).
	 */
	boolean drawn() {
		return this.drawn;
	}

	/**
	 * Return whether a run that does not hand over ({@link #drawn()} false) hands over
	 * all the same, its heads offering first, if a queued waiter may be offered there
	 * (two writers of different owners share a JVM's line): drawn in half of those runs,
	 * from a PRNG of its own. The runs that hand over draw too few queued offers for the
	 * seeds CI runs (docs/design/simulation.md, "Offers of queued waiters").
	 */
	boolean forQueuedOffers() {
		return this.forQueuedOffers;
	}

	/**
	 * Return whether a head that gets its turn while a hold of another owner of its JVM
	 * holds the lock offers itself to that hold before its first attempt
	 * ({@code Waiting.promoted(boolean, LocalHold)}; docs/design/waiting-and-hand-off.md,
	 * "Offering before the first attempt"): drawn in half of the runs, where the run
	 * hands over.
	 */
	boolean offersFirst() {
		return this.offersFirst;
	}

	/**
	 * Draw how long a head that gets its turn takes between reading its line's signal
	 * count and looking up the local hold: none in half of the turns, up to 100 µs in a
	 * quarter, up to 3 ms (a thread descheduled; as long as a hold's work) in the others.
	 * A hold that ends and signals in between must still wake it.
	 */
	long lookUpAfterCount() {
		int gap = this.offerRandom.nextInt(4);
		long nanos = this.offerRandom.between(0, (gap == 3) ? 3 * LockSimulation.MS : 100_000);
		return (gap >= 2) ? nanos : 0;
	}

	/**
	 * Draw how much later than usual a waiter's thread takes the turn the waiter before
	 * it passed on (a thread still to wake on a busy machine), while a release may grant
	 * the lock to its offer: none in half of the turns, up to 3 ms in a quarter, up to 10
	 * ms in the others.
	 */
	long turnDelay() {
		int delay = this.offerRandom.nextInt(4);
		long nanos = this.offerRandom.between(0, (delay == 3) ? 10 * LockSimulation.MS : 3 * LockSimulation.MS);
		return (delay >= 2) ? nanos : 0;
	}

	/**
	 * Return the most grants in a row while another request waits
	 * ({@code distributed-lock.local-hand-offs}).
	 */
	int limit() {
		return this.limit;
	}

	/**
	 * Draw how long the releaser pauses between its clock reading ({@code t0}) and the
	 * send: an eighth of the hand-overs pause about a protocol constant, if pauses are
	 * on. Drawn either way.
	 */
	long pauseBeforeSend(boolean pauses) {
		boolean pause = this.random.nextInt(8) == 0;
		long nanos = LockSimulation.aroundConstant(this.random);
		return (pause && pauses) ? nanos : 0;
	}

	/**
	 * Draw whether a writer's acquisition in a run that hands over asks for a longer
	 * lease than the lock's: a quarter do.
	 */
	boolean longerLease() {
		return this.random.nextInt(4) == 0;
	}

	void count(Counted counted) {
		this.counts[counted.ordinal()]++;
	}

	/**
	 * Return how many hand-overs did each of {@link Counted}, in its order.
	 */
	int[] counts() {
		return this.counts.clone();
	}

	/**
	 * Return the most grants in a row one request of the line waited through.
	 */
	int mostPassedBy() {
		return this.mostPassedBy;
	}

	/**
	 * A hand-over's first run granted {@code token} to the head, releasing the hold of
	 * {@code releasedToken}; {@code waiting} are the requests left in the line after it
	 * (the script takes out the head's only).
	 * @return a violation of the limit, or {@code null}
	 */
	@Nullable String granted(long releasedToken, long token, Collection<String> waiting) {
		if (releasedToken != this.lastGranted) {
			// The released hold was taken by an acquire script: a new run.
			this.passedBy.clear();
		}
		this.lastGranted = token;
		this.passedBy.keySet().retainAll(waiting);
		String violation = null;
		for (String request : waiting) {
			int passed = this.passedBy.merge(request, 1, Integer::sum);
			this.mostPassedBy = Math.max(this.mostPassedBy, passed);
			if (passed > this.limit && violation == null) {
				violation = "request " + request + " waited through " + passed + " hand-over grants in a row, "
						+ "the last token " + token + ", past the limit of " + this.limit;
			}
		}
		return violation;
	}

	/**
	 * What a hand-over did, counted.
	 */
	enum Counted {

		/** A releaser offered the lock to its line's head. */
		OFFERED,

		/** The reply granted it, and the head held the lock. */
		HELD,

		/** The reply granted it too late: the head tried again at once. */
		LATE,

		/** The reply refused it: the releaser released with {@code release.lua}. */
		REFUSED,

		/** A refusal while other requests waited, the releaser's hold granted. */
		REFUSED_AT_LIMIT,

		/** The reply never came: the head tried on its own at once. */
		FAILED,

		/** The releaser paused between its clock reading and the send. */
		PAUSED,

		/** The head was stopped while offered, and waited for the reply. */
		STOPPED_WHILE_OFFERED,

		/** A stopped head's grant was released. */
		UNWANTED_RELEASED,

		/**
		 * A head that got its turn slept, offering itself to a local hold before its
		 * first attempt.
		 */
		OFFERED_FIRST,

		/** A grant went to a head that had not filed its request (it offered first). */
		GRANTED_UNFILED,

		/**
		 * A releaser offered the lock to the first waiter of its line before that waiter
		 * took its turn (its thread still to wake).
		 */
		OFFERED_QUEUED,

		/** A grant went to a waiter offered before it took its turn. */
		GRANTED_QUEUED,

		/**
		 * A head offering itself first was woken by the line's signal as the local hold
		 * ended, before its timer.
		 */
		OFFER_FIRST_SIGNALLED,

		/**
		 * A head offering itself first slept until its timer (the local hold's lease end,
		 * or its wait time).
		 */
		OFFER_FIRST_TIMED_OUT,

		/**
		 * A refusal at the limit that released the hold in the same script, as
		 * {@code release.lua} would (its reply {@code [2]}): no {@code release.lua}
		 * followed (docs/design/waiting-and-hand-off.md, "Session 21").
		 */
		PASSED_ON_AT_LIMIT

	}

}
