package io.github.distributedlock.redis.core;

import java.util.HexFormat;

import io.github.distributedlock.simulation.SimulationRandom;

/**
 * The engine's hold and request ids ({@link UniqueIds}) of one run of the simulation,
 * which its ports hand out: from a process id drawn from the run's seed, so a run is the
 * same run whether it is replayed alone or in a sweep, in any JVM, beside other runs or
 * not. The process id decides how requests filed in the same millisecond sort in Redis
 * (by member), so the seeds still draw every order.
 */
public final class SimulatedIds {

	// The seed of the process id's draw, xor the run's ("ids").
	private static final long SEED = 0x696473L;

	private SimulatedIds() {
	}

	/**
	 * Return the ids of a run of this seed.
	 */
	public static UniqueIds of(long seed) {
		return new UniqueIds(HexFormat.of().toHexDigits(new SimulationRandom(seed ^ SEED).nextLong()));
	}

}
