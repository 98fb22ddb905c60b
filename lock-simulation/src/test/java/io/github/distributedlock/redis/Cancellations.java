package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * The cancels and interrupts of waiting acquisitions
 * ({@link LockSimulation.Fault#CANCEL}), and what each driver of the engine makes of one.
 * Drawn from a PRNG of their own, so that a run without them is the run it was before
 * they came.
 * <p>
 * A reactive cancel ({@code AcquisitionRun.cancel}): while the acquisition sleeps, it
 * ends at once ({@code Acquisition.end(false)}: the request withdrawn, the writer intent
 * dropped); while an attempt is in flight, the attempt's reply ends it, and a grant the
 * reply brings, in time or too late, is released ({@code SingleAcquisition.replied},
 * {@code abandon}). A blocking interrupt ({@code WaitLoop}): a Redis call in flight is
 * not interrupted, and a grant its reply brings is the caller's; the interrupt ends the
 * wait at its next sleep, as a cancel does.
 */
final class Cancellations {

	private final SimulationRandom random;

	private int cancelledAsleep;

	private int cancelledInFlight;

	private int grantsReleased;

	private int interrupted;

	Cancellations(long seed) {
		this.random = new SimulationRandom(seed ^ 0x63616e63656cL);
	}

	/**
	 * Draw whether the acquisition starting now is stopped, and when: a quarter are,
	 * within its first attempt (a network delay), within its first milliseconds, or about
	 * a protocol constant after it started.
	 * @return the stop, or {@code null} if it runs its course
	 */
	@Nullable Stop draw() {
		boolean stops = this.random.nextInt(4) == 0;
		boolean interrupt = this.random.nextInt(2) == 0;
		int when = this.random.nextInt(3);
		long delay = switch (when) {
			case 0 -> this.random.between(0, 200_000);
			case 1 -> this.random.between(0, 10 * LockSimulation.MS);
			default -> LockSimulation.aroundConstant(this.random);
		};
		return stops ? new Stop(delay, interrupt) : null;
	}

	void cancelledAsleep() {
		this.cancelledAsleep++;
	}

	void cancelledInFlight(boolean grantReleased) {
		this.cancelledInFlight++;
		this.grantsReleased += grantReleased ? 1 : 0;
	}

	void interrupted() {
		this.interrupted++;
	}

	/**
	 * Return how many waits a cancel ended asleep, a cancel ended with the reply of an
	 * attempt in flight, whose grant was then released, and an interrupt ended at a
	 * sleep, in that order.
	 */
	int[] counts() {
		return new int[] { this.cancelledAsleep, this.cancelledInFlight, this.grantsReleased, this.interrupted };
	}

	/**
	 * A stop of one acquisition.
	 *
	 * @param delayNanos how long after the acquisition started
	 * @param interrupt whether the blocking driver's thread is interrupted, rather than
	 * the reactive driver's subscription cancelled
	 */
	record Stop(long delayNanos, boolean interrupt) {

	}

	/**
	 * What a stop asked of the acquisition it came to.
	 */
	enum Pending {

		/** Nothing: the acquisition runs its course. */
		NONE,

		/** Cancelled while an attempt was in flight: its reply ends the acquisition. */
		CANCELLED,

		/** Interrupted: the acquisition ends at its next sleep. */
		INTERRUPTED

	}

}
