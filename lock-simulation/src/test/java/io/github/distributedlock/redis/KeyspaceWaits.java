package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;

/**
 * The draws of the runs whose clients wait for keyspace events
 * ({@code WaitStrategy.KEYSPACE_EVENTS}): which runs, and when Redis's active expiry runs
 * in them. Both come from a PRNG of their own, seeded from the run's seed, so that the
 * runs that don't draw keyspace waits are the runs they were.
 * <p>
 * Redis publishes {@code expired} when it finds a key expired: a command that looks the
 * key up (the model does that as it runs the command), or its active expiry cycle, which
 * runs ten times a second ({@code hz 10}) and, with the few keys of one lock, finds every
 * key whose time has passed. The model runs that cycle every 100 ms from a drawn phase,
 * so a key nobody looks up publishes its {@code expired} up to 100 ms after its time, as
 * on a real server.
 */
final class KeyspaceWaits {

	/** XOR-ed into the run's seed: "keys". */
	static final long SEED = 0x6b657973L;

	/** How often Redis's active expiry runs: {@code hz 10}. */
	static final long CYCLE_NANOS = 100 * LockSimulation.MS;

	private KeyspaceWaits() {
	}

	/**
	 * Return whether a run waits for keyspace events: a quarter of the runs (of those
	 * that can: locks, read locks and fair locks, not permits or pollers).
	 */
	static boolean draws(SimulationRandom random) {
		return random.nextInt(4) == 0;
	}

	/**
	 * Return when the active expiry first runs: the phase of its cycle.
	 */
	static long firstCycle(SimulationRandom random) {
		return random.between(0, CYCLE_NANOS);
	}

}
