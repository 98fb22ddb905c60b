package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * The cancels of waiting acquisitions ({@link LockSimulation.Fault#CANCEL}), which the
 * simulated clients make with the driver's {@code AcquisitionRun.cancel()}, and what came
 * of them. Drawn from a PRNG of their own, so that a run without them is the run it was
 * before they came.
 * <p>
 * While no attempt is in flight, the acquisition ends at once (its request withdrawn, its
 * writer intent dropped); while one is, the attempt's reply ends it, and a grant the
 * reply brings, in time or too late, is released.
 */
final class Cancellations {

	private final SimulationRandom random;

	private int cancelledAsleep;

	private int cancelledInFlight;

	private int grantsReleased;

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
		// Drawn still, so that the other draws stay: once, a stop was a blocking
		// interrupt or a cancel.
		this.random.nextInt(2);
		int when = this.random.nextInt(3);
		long delay = switch (when) {
			case 0 -> this.random.between(0, 200_000);
			case 1 -> this.random.between(0, 10 * LockSimulation.MS);
			default -> LockSimulation.aroundConstant(this.random);
		};
		return stops ? new Stop(delay) : null;
	}

	void cancelledAsleep() {
		this.cancelledAsleep++;
	}

	void cancelledInFlight(boolean grantReleased) {
		this.cancelledInFlight++;
		this.grantsReleased += grantReleased ? 1 : 0;
	}

	/**
	 * Return how many waits a cancel ended at once, how many it ended with the reply of
	 * an attempt in flight, and how many of those had a grant released, in that order.
	 */
	int[] counts() {
		return new int[] { this.cancelledAsleep, this.cancelledInFlight, this.grantsReleased };
	}

	/**
	 * A stop of one acquisition.
	 *
	 * @param delayNanos how long after the acquisition started
	 */
	record Stop(long delayNanos) {

	}

}
