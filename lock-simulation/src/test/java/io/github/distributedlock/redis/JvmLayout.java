package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;

/**
 * How a run's clients are spread over JVMs. Clients of one JVM wait for the lock in one
 * {@link LocalLine} per lock kind, as the engine's waiters of one lock in one JVM do:
 * only the head files a request in Redis, and the others wait for their turn behind it.
 */
enum JvmLayout {

	/**
	 * Each client in a JVM of its own.
	 */
	ONE_EACH,

	/**
	 * c0 and c1 in one JVM, c2 and c3 in another.
	 */
	TWO_EACH,

	/**
	 * c0, c1 and c2 in one JVM, c3 in another: a shared custom owner of c2 and c3 spans
	 * the two JVMs, and a reading pair shares a JVM with a writer.
	 */
	THREE_AND_ONE,

	/**
	 * Every client in one JVM.
	 */
	ALL_IN_ONE;

	/**
	 * Draw the layout of a run whose clients share JVMs: half of them two to a JVM (as
	 * before the other layouts came), a quarter three and one, a quarter all in one.
	 */
	static JvmLayout draw(SimulationRandom random) {
		int drawn = random.nextInt(4);
		return (drawn < 2) ? TWO_EACH : (drawn == 2) ? THREE_AND_ONE : ALL_IN_ONE;
	}

	/**
	 * Return the JVM of client {@code i}, or -1 if it has one of its own.
	 */
	int jvm(int i) {
		return switch (this) {
			case ONE_EACH -> -1;
			case TWO_EACH -> i / 2;
			case THREE_AND_ONE -> (i < 3) ? 0 : 1;
			case ALL_IN_ONE -> 0;
		};
	}

}
