package io.github.distributedlock.redis.core;

import java.util.HexFormat;

import io.github.distributedlock.simulation.SimulationRandom;

/**
 * Starts the engine's hold and request ids ({@link UniqueIds}) again for each run of the
 * simulation, from a process id drawn from the run's seed: a run is then the same run
 * whether it is replayed alone or in a sweep, in any JVM. The process id decides how
 * requests filed in the same millisecond sort in Redis (by member), so the seeds still
 * draw every order.
 */
public final class SimulatedIds {

	// The seed of the process id's draw, xor the run's ("ids").
	private static final long SEED = 0x696473L;

	private SimulatedIds() {
	}

	/**
	 * Start the ids of a run of this seed.
	 */
	public static void restart(long seed) {
		UniqueIds.restart(HexFormat.of().toHexDigits(new SimulationRandom(seed ^ SEED).nextLong()));
	}

}
