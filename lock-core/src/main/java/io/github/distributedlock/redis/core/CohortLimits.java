package io.github.distributedlock.redis.core;

import java.time.Duration;

/**
 * How far a cohort may pass a lock in memory before it goes back through Redis
 * (docs/design/cohorting.md, "Timing constants").
 *
 * @param holders the most holders of one cohort, the opening one included: the block of
 * tokens it asks Redis for; 1 turns cohorts off
 * @param timeNanos the time after the opening attempt was sent within which a pass may
 * happen
 */
public record CohortLimits(int holders, long timeNanos) {

	/**
	 * The most tokens one hold may reserve, so the most holders of a cohort: the fencing
	 * counter's lead on the clock, in µs ({@code reserve_block} in {@code lib.lua}).
	 */
	public static final int MAX_HOLDERS = 1_000;

	/** Cohorts off: every release goes through Redis. */
	public static final CohortLimits OFF = new CohortLimits(1, 0);

	public CohortLimits {
		if (holders < 1 || holders > MAX_HOLDERS) {
			throw new IllegalArgumentException("a cohort's holders are 1 (off) to " + MAX_HOLDERS + ", not " + holders);
		}
		if (timeNanos < 0) {
			throw new IllegalArgumentException("a cohort's time limit must not be negative: " + timeNanos + " ns");
		}
	}

	public static CohortLimits of(int holders, Duration time) {
		return new CohortLimits(holders, time.toNanos());
	}

	public boolean isOn() {
		return this.holders > 1 && this.timeNanos > 0;
	}

}
