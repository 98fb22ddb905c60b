package io.github.distributedlock.redis;

import java.util.HashMap;
import java.util.Map;

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

	/**
	 * Return how many holds, at most, are granted to others while client {@code i} of
	 * {@code clients} waits, each taking at most a hold, a message and a round trip, in a
	 * run without faults where each client acquires again after each release.
	 * <p>
	 * The lock goes to the requests in Redis in the order they were filed, one per JVM at
	 * a time (its line's head); a JVM's next head files when its head is granted. So a
	 * waiter with {@code p - 1} waiters ahead of it in its JVM's line needs {@code p}
	 * grants of its JVM, each of which may come after one grant of every other JVM.
	 * Besides, when it starts the lock may be held: by a client of its own JVM (then at
	 * most {@code n - 2} are ahead of it in line, where {@code n} clients share its JVM),
	 * or by another JVM's, whose head may also have a request ahead of it if that JVM has
	 * two clients or more. With a JVM each this is {@code clients - 1}, the guarantees'
	 * requests ahead; with two to a JVM, 4 rather than 3 (the holder, the other JVM's
	 * head, the own head, the other JVM's next head); with three and one, 5 for the three
	 * (the lone client holds between each of their grants) and 2 for the one; all in one
	 * JVM, a FIFO line: 3.
	 */
	int holdsAhead(int clients, int i) {
		int jvm = jvm(i);
		if (jvm < 0) {
			return clients - 1;
		}
		int own = 0;
		int others = 0;
		boolean otherShared = false;
		Map<Integer, Integer> sizes = new HashMap<>();
		for (int c = 0; c < clients; c++) {
			sizes.merge((jvm(c) < 0) ? -1 - c : jvm(c), 1, Integer::sum);
		}
		for (Map.Entry<Integer, Integer> size : sizes.entrySet()) {
			if (size.getKey() == jvm) {
				own = size.getValue();
			}
			else {
				others++;
				otherShared |= size.getValue() >= 2;
			}
		}
		// Held by its own JVM: n - 1 rounds of its JVM, each after every other JVM's.
		int heldByOwn = (own - 1) * (others + 1);
		// Held by another JVM: n rounds, the waiters ahead of it and its own grant.
		int heldByOther = (others == 0) ? 0 : (own - 1) + own * others + (otherShared ? 1 : 0);
		return Math.max(heldByOwn, heldByOther);
	}

}
