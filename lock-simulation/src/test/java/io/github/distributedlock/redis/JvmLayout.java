package io.github.distributedlock.redis;

import io.github.distributedlock.simulation.SimulationRandom;

/**
 * How a run's clients are spread over JVMs. Clients of one JVM wait for the lock in one
 * {@code LocalLine} per lock kind, as the engine's waiters of one lock in one JVM do:
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
	ALL_IN_ONE,

	/**
	 * c0 and c1 in one JVM, c2 and c3 each in one of their own: three processes in line,
	 * one of them with a local line behind its head.
	 */
	TWO_AND_TWO_ALONE;

	// The seed of the draw that spreads a run with a JVM each as two and two alone, xor
	// the run's ("2+1+").
	private static final long ALONE_SEED = 0x322b312bL;

	/**
	 * Draw the layout of a run whose clients do not share JVMs as the other layouts do: a
	 * quarter of them two and two alone, the others a JVM each. Drawn from a PRNG of its
	 * own, so that the other runs are the runs they were.
	 */
	static JvmLayout drawApart(long seed) {
		return (new SimulationRandom(seed ^ ALONE_SEED).nextInt(4) == 0) ? TWO_AND_TWO_ALONE : ONE_EACH;
	}

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
			case TWO_AND_TWO_ALONE -> (i < 2) ? 0 : -1;
		};
	}

	/**
	 * Return how many holds, at most, are granted to others while a client waits, each
	 * taking at most a hold, a message and a round trip, in a run without faults where
	 * each client acquires again after each release: a client of a local line of
	 * {@code own} clients, beside {@code otherLines} lines of other JVMs or of the other
	 * lock kind of its own JVM (a JVM's readers and writers wait in two lines, each with
	 * a head that files requests), {@code otherShared} if one of those lines has two
	 * clients or more.
	 * <p>
	 * The lock goes to the requests in Redis in the order they were filed, one per line
	 * at a time (its head's); a line's next head files when its head is granted. So a
	 * waiter with {@code p - 1} waiters ahead of it in its line needs {@code p} grants of
	 * its line, each of which may come after one grant of every other line. Besides, when
	 * it starts the lock may be held: by a client of its own line (then at most
	 * {@code own - 2} are ahead of it), or by another line's, whose head may also have a
	 * request ahead of it if that line has two clients or more. With a JVM each this is
	 * {@code clients - 1}, the guarantees' requests ahead; two to a JVM, 4 rather than 3
	 * (the holder, the other JVM's head, its own head, the other JVM's next head); three
	 * and one, 5 for the three (the lone client may hold between each of their grants)
	 * and 2 for the one; all in one JVM, a FIFO line: 3. A reading pair makes a line of
	 * its own: all in one JVM with readers counts as two to a JVM.
	 */
	static int holdsAhead(int own, int otherLines, boolean otherShared) {
		int round = otherLines;
		// Held by its own line: own - 1 rounds of its line, each after every other
		// line's.
		int heldByOwn = (own - 1) * (round + 1);
		// Held by another line: own rounds, the waiters ahead of it and its own grant.
		int heldByOther = (otherLines == 0) ? 0 : (own - 1) + own * round + (otherShared ? 1 : 0);
		return Math.max(heldByOwn, heldByOther);
	}

}
