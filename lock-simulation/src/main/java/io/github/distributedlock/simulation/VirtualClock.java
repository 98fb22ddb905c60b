package io.github.distributedlock.simulation;

import java.time.Duration;

/**
 * The simulation's clock: nanoseconds since the Unix epoch that move only when told to,
 * and never back. Redis's {@code TIME}, key expiry and the simulated clients all read it,
 * so a run depends on its seed alone. Not thread-safe: a simulation is one thread.
 */
public final class VirtualClock {

	private long nanos;

	/**
	 * Create a clock.
	 * @param startNanos the time it shows, in nanoseconds since the Unix epoch
	 */
	public VirtualClock(long startNanos) {
		if (startNanos < 0) {
			throw new IllegalArgumentException("A virtual clock starts at or after the epoch, not at " + startNanos);
		}
		this.nanos = startNanos;
	}

	/**
	 * Return the time in nanoseconds since the Unix epoch.
	 * @return the time
	 */
	public long nanos() {
		return this.nanos;
	}

	/**
	 * Return the time in microseconds since the Unix epoch, as Redis's {@code TIME} has
	 * it.
	 * @return the time, truncated to the microsecond
	 */
	public long micros() {
		return this.nanos / 1_000;
	}

	/**
	 * Return the time in milliseconds since the Unix epoch, as Redis's expiry has it.
	 * @return the time, truncated to the millisecond
	 */
	public long millis() {
		return this.nanos / 1_000_000;
	}

	/**
	 * Move the clock forward.
	 * @param duration how far, zero or more
	 */
	public void advance(Duration duration) {
		advanceNanos(duration.toNanos());
	}

	/**
	 * Move the clock forward.
	 * @param delta how far, in nanoseconds, zero or more
	 */
	public void advanceNanos(long delta) {
		if (delta < 0) {
			throw new IllegalArgumentException("A virtual clock never goes back, but was moved by " + delta + " ns");
		}
		this.nanos = Math.addExact(this.nanos, delta);
	}

	/**
	 * Move the clock forward to a time.
	 * @param target the time in nanoseconds since the epoch, not before the current one
	 */
	public void advanceTo(long target) {
		advanceNanos(target - this.nanos);
	}

	@Override
	public String toString() {
		return "VirtualClock[" + this.nanos + " ns]";
	}

}
