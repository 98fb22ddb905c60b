package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * Commands whose reply never comes ({@link LockSimulation.Fault#CUT}): the connection is
 * cut between a command's write and its reply. The command runs in Redis, or never
 * reaches it (Lettuce discards, on reconnect, a command cancelled before it was written),
 * whatever it is, a release too, and the client sees a failure once its command timeout
 * has passed, then does what the engine does with that exception. Drawn from a PRNG of
 * its own, so that a run with {@code CUT} off is the run it was before.
 * <p>
 * The engine has no command timeout of its own: it is the connection's
 * ({@code spring.data.redis.timeout}; Lettuce's own default is 60 s, which
 * {@code docs/guarantees.md} tells users to lower). The simulation draws around two: 1 s,
 * the chaos suite's (as long as the lock's lease, so an acquisition whose reply is lost
 * learns of it about when the hold it may have taken ends), and 100 ms, a tight one
 * (shorter than every lease and renewal period, so the owner's next acquisition meets the
 * hold its lost reply left in Redis, and a renewal that failed is retried within its
 * lease). Lettuce's 60 s would only make every run wait a minute for nothing.
 */
final class LostReplies {

	/** The command timeouts the clients are configured with, in ms. */
	static final long[] TIMEOUTS_MS = { 100, 1_000 };

	// One command in this many loses its reply.
	private static final int ONE_IN = 30;

	// The latest a late command runs after its client's command timeout.
	static final long LATE_NANOS = 40 * LockSimulation.MS;

	private final SimulationRandom random;

	// Draws whether a command that runs does so late: a PRNG of its own, so that a run
	// with LATE off is the run it was before.
	private final SimulationRandom lateness;

	private boolean on;

	private final boolean late;

	private int ranLate;

	// Commands cut after they ran in Redis, and before they reached it.
	private int ran;

	private final int[] failures = new int[Failure.values().length];

	private final java.util.Set<String> requestsLeft = new java.util.HashSet<>();

	private int neverRan;

	private boolean queueLeft;

	/**
	 * @param on whether the run loses replies; the draws are made either way
	 * @param late whether half the commands that lose their reply after they ran run
	 * late: after their client's command timeout, so after its next commands
	 */
	LostReplies(long seed, boolean on, boolean late) {
		this.random = new SimulationRandom(seed ^ 0x63757473L);
		this.lateness = new SimulationRandom(seed ^ 0x6c617465L);
		this.on = on;
		this.late = late;
	}

	/**
	 * Draw the command timeout of a run's connections, from a PRNG of its own: the longer
	 * of the two, just below, at or just above it. A command that a stall holds back past
	 * it fails then, and may still run later ({@link SimulatedPort}). Not the tight one:
	 * a stall of 2.5 s would fail every acquisition a client makes meanwhile, 100 ms
	 * each, and leave a run without a hold (seed 4464).
	 */
	static long commandTimeoutNanos(long seed) {
		SimulationRandom random = new SimulationRandom(seed ^ 0x74696d656f7574L);
		long constant = TIMEOUTS_MS[TIMEOUTS_MS.length - 1] * LockSimulation.MS;
		long[] offsets = { -LockSimulation.MS, -1, 0, 1, LockSimulation.MS };
		return constant + offsets[random.nextInt(offsets.length)];
	}

	/**
	 * Draw whether the next command loses its reply, and how.
	 * @return the cut, or {@code null} if the reply comes
	 */
	@Nullable Cut draw() {
		boolean cut = this.random.nextInt(ONE_IN) == 0;
		boolean runs = this.random.nextInt(4) != 0;
		long constant = TIMEOUTS_MS[this.random.nextInt(TIMEOUTS_MS.length)] * LockSimulation.MS;
		long[] offsets = { -LockSimulation.MS, -1, 0, 1, LockSimulation.MS };
		long timeout = constant + offsets[this.random.nextInt(offsets.length)];
		if (!cut || !this.on) {
			return null;
		}
		if (!runs) {
			this.neverRan++;
			return new Cut(false, timeout, -1);
		}
		this.ran++;
		if (this.late && this.lateness.nextInt(2) == 0) {
			this.ranLate++;
			return new Cut(true, timeout, timeout + this.lateness.between(0, LATE_NANOS));
		}
		return new Cut(true, timeout, -1);
	}

	/**
	 * Lose no more replies: faults stopped. The draws go on.
	 */
	void stop() {
		this.on = false;
	}

	/**
	 * Count what the engine did with a failure.
	 */
	void failed(Failure failure) {
		this.failures[failure.ordinal()]++;
	}

	/**
	 * Return how many failures of each kind were seen, in the order of {@link Failure}.
	 */
	int[] failures() {
		return this.failures.clone();
	}

	/**
	 * A request whose withdrawal never reached Redis: it may be left in the line when the
	 * run ends (the engine ignores a failed withdrawal), until its line's lifetime
	 * passes.
	 */
	void requestLeft(String member) {
		this.requestsLeft.add(member);
	}

	/**
	 * A fair waiter's leave may never have reached Redis: its place stays in the queue,
	 * and the queue's keys until their lifetime passes after the last fair attempt.
	 */
	void queueLeft() {
		this.queueLeft = true;
	}

	/**
	 * Return whether a fair waiter's leave may never have reached Redis.
	 */
	boolean leftQueue() {
		return this.queueLeft;
	}

	/**
	 * Return whether a withdrawal never reached Redis.
	 */
	boolean leftRequests() {
		return !this.requestsLeft.isEmpty();
	}

	/**
	 * Return whether the request may be left in the line: its withdrawal never reached
	 * Redis.
	 */
	boolean mayBeLeft(Object member) {
		return this.requestsLeft.contains(String.valueOf(member));
	}

	/**
	 * Return how many commands lost their reply after they ran in Redis, and before they
	 * reached it, and how many of the first ran late (after their client's command
	 * timeout), in that order.
	 */
	int[] counts() {
		return new int[] { this.ran, this.neverRan, this.ranLate };
	}

	/**
	 * What failed without a reply.
	 */
	enum Failure {

		/** An acquisition's attempt: the acquisition failed. */
		ACQUISITION,

		/** A release: the handle is released anyway. */
		RELEASE,

		/** A renewal: tried again while the lease lasts. */
		RENEWAL,

		/** A hold lost because its renewals failed until its lease was over. */
		RENEWAL_LOST,

		/** An extension: the deadline stays. */
		EXTENSION,

		/** A re-entry: the outer hold goes on. */
		REENTRY,

		/**
		 * An acquisition refused as a self-deadlock: it found a hold of its owner that a
		 * lost reply left in Redis.
		 */
		SELF_DEADLOCK

	}

	/**
	 * A command whose reply never comes.
	 *
	 * @param runs whether it runs in Redis (else it never reaches it)
	 * @param timeoutNanos how long after it was sent the client sees the failure
	 * @param lateNanos how long after it was sent it runs, if late (after the timeout),
	 * else -1: it runs after the usual network delay
	 */
	record Cut(boolean runs, long timeoutNanos, long lateNanos) {

	}

}
