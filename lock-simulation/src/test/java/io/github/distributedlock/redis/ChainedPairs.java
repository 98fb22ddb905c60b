package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.Waiting;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * The chained hint in a run (docs/design/waiting-and-hand-off.md, "The chained hint"):
 * whether its heads chain, the draws of its faults, and Redis's side of the pairs, each a
 * client blocked in {@code BLPOP} of a hint key with its attempt queued behind it. A
 * blocked pair is served, in the order the pairs blocked, once its key holds an element
 * after a command ({@link #unblock}) or when its {@code BLPOP} times out: one element is
 * popped at once, and its attempt runs then or a moment later, after other commands that
 * reached Redis meanwhile. A pair whose connection closed before it was served never
 * runs. Drawn from a PRNG of its own, so that the runs without chained heads stay the
 * runs they were.
 */
final class ChainedPairs {

	// The command timeouts a run draws from: the pair's BLPOP blocks at most half of it.
	// No head chains below Waiting.Chain.MIN_COMMAND_TIMEOUT_NANOS (400 ms): an idle
	// redis-server ends a BLPOP up to 100 ms late, which this model leaves out.
	private static final long[] COMMAND_TIMEOUTS_MS = { 400, 1_000 };

	private final SimulationRandom random;

	// Which paused heads pause about their lease instead: a PRNG of its own, so that the
	// other pauses stay the pauses they were.
	private final SimulationRandom pastLease;

	private boolean on;

	private long commandTimeoutNanos;

	private final List<Blocked> blocked = new ArrayList<>();

	// What the run did with its pairs: see counts().
	private final int[] counts = new int[Counted.values().length];

	ChainedPairs(long seed) {
		this.random = new SimulationRandom(seed ^ 0x636861696eL);
		this.pastLease = new SimulationRandom(seed ^ 0x6c65617365L);
		this.on = this.random.nextInt(2) == 0 && !"off".equals(System.getProperty("simulation.chains"));
		this.commandTimeoutNanos = COMMAND_TIMEOUTS_MS[this.random.nextInt(COMMAND_TIMEOUTS_MS.length)]
				* LockSimulation.MS;
	}

	/**
	 * No head of this run chains (a run that holds a waiter to a bound the chained hint's
	 * waits are not measured against yet).
	 */
	void off() {
		this.on = false;
	}

	/**
	 * Return whether this run's heads may chain.
	 */
	boolean on() {
		return this.on;
	}

	/**
	 * Return whether a head that may chain takes a hint connection: most do, the others
	 * wait as heads that find none free.
	 */
	boolean takesHint() {
		return this.on && this.random.nextInt(5) != 0
				&& this.commandTimeoutNanos >= Waiting.Chain.MIN_COMMAND_TIMEOUT_NANOS;
	}

	/**
	 * Give the run's connections a command timeout long enough that a pair's
	 * {@code BLPOP} (half of it) outlasts the claim: only then does the claim cap the
	 * sleep a quiet head hands its pair, rather than the {@code BLPOP}'s own limit. Drawn
	 * by the caller apart from this PRNG, so that the other runs are the runs they were.
	 */
	void longCommandTimeout(long millis) {
		this.commandTimeoutNanos = millis * LockSimulation.MS;
	}

	long commandTimeoutNanos() {
		return this.commandTimeoutNanos;
	}

	SimulationRandom random() {
		return this.random;
	}

	/**
	 * Return how long a head paused with its pair out pauses: in a quarter of the pauses
	 * just below, at or just above its lease, counted from its clock reading before the
	 * pair, so that a grant's reply is read as late, in time or not at all; else the
	 * pause drawn about the other constants.
	 * @param drawn the pause drawn about the claim, the quarter and third of the lease,
	 * the block and the reply deadline
	 * @param leaseNanos the lease its attempt asks for
	 * @param sinceReading how long ago its clock reading was taken
	 */
	long pause(long drawn, long leaseNanos, long sinceReading) {
		if (this.pastLease.nextInt(4) != 0) {
			return drawn;
		}
		long[] offsets = { -LockSimulation.MS, -1, 0, 1, LockSimulation.MS };
		count(Counted.PAUSED_ABOUT_LEASE);
		return Math.max(0, leaseNanos - sinceReading + offsets[this.pastLease.nextInt(offsets.length)]);
	}

	/**
	 * A network delay for a pair's command: mostly tens of microseconds, sometimes
	 * milliseconds.
	 */
	long network() {
		return (this.random.nextInt(10) == 0) ? this.random.between(0, 5 * LockSimulation.MS)
				: this.random.between(0, 100_000);
	}

	/**
	 * How long after a pair is served its attempt runs: at once, mostly, else after the
	 * commands of other clients that Redis read meanwhile.
	 */
	long serveDelay() {
		return (this.random.nextInt(3) == 0) ? this.random.between(0, 300_000) : 0;
	}

	void count(Counted counted) {
		this.counts[counted.ordinal()]++;
	}

	/**
	 * Return how many times the run's pairs did each {@link Counted}, in its order.
	 */
	int[] counts() {
		return this.counts.clone();
	}

	/**
	 * A pair's {@code BLPOP} reached Redis.
	 */
	void block(Blocked pair) {
		this.blocked.add(pair);
	}

	/**
	 * Return whether a pair is blocked in Redis, not yet served.
	 */
	boolean isBlocked(Blocked pair) {
		return this.blocked.contains(pair);
	}

	/**
	 * Remove a pair that is still blocked (its {@code BLPOP} timed out, or its connection
	 * closed).
	 * @return whether it was blocked
	 */
	boolean unblock(Blocked pair) {
		return this.blocked.remove(pair);
	}

	/**
	 * Serve the blocked pairs whose key holds an element now, in the order they blocked:
	 * pop one element for each.
	 * @return the pairs served, to run their attempts
	 */
	List<Blocked> served(RedisModel redis) {
		if (this.blocked.isEmpty() || !redis.answering()) {
			return List.of();
		}
		List<Blocked> served = new ArrayList<>();
		for (Blocked pair : List.copyOf(this.blocked)) {
			Object popped = redis.command("LPOP", pair.hintKey());
			if (popped != null) {
				this.blocked.remove(pair);
				served.add(pair);
			}
		}
		return served;
	}

	/**
	 * A client blocked in Redis on a hint key, with its attempt queued behind it.
	 *
	 * @param client the client's name
	 * @param hintKey the key
	 * @param attempt what runs the attempt once it is served
	 */
	record Blocked(String client, String hintKey, Runnable attempt) {

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}

	}

	/**
	 * What the pairs of a run did.
	 */
	enum Counted {

		/** A head took a hint connection: its request is a chained one. */
		CHAINED,

		/** A pair was sent. */
		SENT,

		/** A pair's BLPOP was served by an element in its key. */
		POPPED,

		/** A pair's BLPOP timed out. */
		TIMED_OUT,

		/** A pair's attempt ran (each run counted). */
		RAN,

		/** A pair's attempt took the reservation made for its request. */
		TOOK_RESERVATION,

		/** A pair's attempt took the lock otherwise (free). */
		TOOK_FREE,

		/** A head pushed its own hint. */
		POKED,

		/** A push nobody meant (a forged or replayed poke). */
		FORGED,

		/** A pair's reply was lost. */
		REPLY_LOST,

		/** A pair was re-sent after a reconnect, its attempt run twice. */
		RESENT,

		/** A pair's connection dropped while it was blocked. */
		DROPPED,

		/** A head was paused with its pair out. */
		PAUSED,

		/** A head gave up on its pair's reply: the connection closed. */
		UNANSWERED,

		/** A head stopped (interrupt, cancel) with its pair out. */
		STOPPED,

		/** A stopped head released what its pair's attempt granted. */
		STOP_RELEASED,

		/** A pair's reply was read as a hold. */
		HELD,

		/**
		 * A pair was handed a hint wait past a quarter of the lock's 1 s lease: only a
		 * long lease and a long command timeout allow it, and the claim caps it.
		 */
		LONG,

		/** A head was paused with its pair out until about its lease's end. */
		PAUSED_ABOUT_LEASE

	}

}
