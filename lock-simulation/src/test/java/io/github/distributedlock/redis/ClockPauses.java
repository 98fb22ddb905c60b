package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;

/**
 * Pauses at clock reads ({@link CohortRun.Attack#CLOCK}): as engine code reads a port's
 * clock, the thread is descheduled right there, and the clock moves on by the pause
 * before the read returns, so that a check made with that reading sees the time after the
 * pause, as after a real one. The pauses end just before, at or just after a moment that
 * a check compares with: the cohort's time limit, the cohort's lease end, the minimum
 * hold of a hold; or last about a protocol constant. The run's lock has a minimum hold in
 * half the runs that pause. Drawn from a PRNG of their own, in half the runs that may
 * draw them, so that the other runs are the runs they were.
 */
final class ClockPauses {

	static final long MS = LockSimulation.MS;

	// One in how many clock reads pauses.
	private static final int READS_PER_PAUSE = 25;

	// How far from a moment a pause ends: a millisecond or a nanosecond before, at it, or
	// after.
	private static final long[] OFFSETS = { -MS, -1, 0, 1, MS };

	private final SimulationRandom random;

	private final boolean drawn;

	private final long minimumHoldMillis;

	private int pauses;

	private int atMoments;

	/**
	 * @param enabled whether the run may draw pauses
	 */
	ClockPauses(long seed, boolean enabled) {
		this.random = new SimulationRandom(seed ^ 0x636c6f636bL);
		this.drawn = enabled && this.random.nextInt(2) == 0;
		this.minimumHoldMillis = (this.drawn && this.random.nextInt(2) == 0) ? 1 + this.random.nextInt(3) : 0;
	}

	/** Return the minimum hold of the run's lock, in milliseconds, or 0 for none. */
	long minimumHoldMillis() {
		return this.minimumHoldMillis;
	}

	/**
	 * Draw whether a clock read pauses, and for how long.
	 * @param untilMoments how long until each moment a check may compare this reading
	 * with (a moment already past is not drawn)
	 * @return the pause, or 0 for none
	 */
	long draw(long... untilMoments) {
		if (!this.drawn || this.random.nextInt(READS_PER_PAUSE) != 0) {
			return 0;
		}
		this.pauses++;
		int pick = this.random.nextInt(untilMoments.length + 1);
		if (pick == untilMoments.length || untilMoments[pick] < 0) {
			return LockSimulation.aroundConstant(this.random) / ((this.random.nextInt(4) == 0) ? 1 : 100);
		}
		this.atMoments++;
		return Math.max(0, untilMoments[pick] + OFFSETS[this.random.nextInt(OFFSETS.length)]);
	}

	/** Return how many reads paused, and how many of them about a moment of a check. */
	int[] counts() {
		return new int[] { this.pauses, this.atMoments };
	}

}
