package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.redis.LockSimulation.Fault;
import org.jspecify.annotations.Nullable;

/**
 * Shrinks a failing run of the {@link LockSimulation} to a run of the same seed, with as
 * few events as it finds, that still fails: fewer clients, fewer acquisitions each, and
 * without each fault and hold operation it can do without. Greedy, not minimal: each step
 * keeps a smaller run only if it still fails, with no more events. Shrinking is
 * deterministic, so replaying the seed shrinks to the same run.
 */
final class FailureShrinker {

	private final long seed;

	private final Map<String, String> scripts;

	private final LockSimulation.ClientBug clientBug;

	private FailureShrinker(long seed, Map<String, String> scripts, LockSimulation.ClientBug clientBug) {
		this.seed = seed;
		this.scripts = scripts;
		this.clientBug = clientBug;
	}

	/**
	 * Run the seed and, if it fails, shrink it.
	 * @param seed the seed
	 * @param scripts script texts to use instead of the engine's (planted bugs)
	 * @param clientBug a bug planted into the clients, as {@link LockSimulation} takes
	 * @param clients the clients of the run to shrink
	 * @param acquisitions the acquisitions of each client
	 * @return the smallest failing run found, or {@code null} if the seed passes
	 */
	static @Nullable Shrunk shrink(long seed, Map<String, String> scripts, LockSimulation.ClientBug clientBug,
			int clients, int acquisitions) {
		return shrink(seed, scripts, clientBug, clients, acquisitions, EnumSet.allOf(Fault.class));
	}

	/**
	 * Run the seed with the given faults and, if it fails, shrink it.
	 * @param faults the faults and hold operations the run to shrink draws
	 * @return the smallest failing run found, or {@code null} if the seed passes
	 * @see #shrink(long, Map, LockSimulation.ClientBug, int, int)
	 */
	static @Nullable Shrunk shrink(long seed, Map<String, String> scripts, LockSimulation.ClientBug clientBug,
			int clients, int acquisitions, Set<Fault> faults) {
		return new FailureShrinker(seed, scripts, clientBug).shrink(clients, acquisitions, faults);
	}

	private @Nullable Shrunk shrink(int clients, int acquisitions, Set<Fault> faults) {
		Shrunk original = run(clients, acquisitions, faults, 0);
		if (original == null) {
			return null;
		}
		Shrunk best = original;
		// Each pass takes the step with the fewest events; until a pass finds none.
		for (Shrunk smaller = step(best); smaller != null; smaller = step(best)) {
			best = smaller;
		}
		return best;
	}

	/**
	 * Return the failing run with the fewest events (and no more than the best's) among
	 * those one step smaller than the best: fewer clients, fewer acquisitions, or one
	 * fault fewer.
	 */
	private @Nullable Shrunk step(Shrunk best) {
		Shrunk found = null;
		for (int fewer = 1; fewer < best.clients; fewer++) {
			found = fewest(found, run(fewer, best.acquisitions, best.faults, best.originalEvents), best);
		}
		for (int fewer = 1; fewer < best.acquisitions; fewer++) {
			found = fewest(found, run(best.clients, fewer, best.faults, best.originalEvents), best);
		}
		for (Fault fault : best.faults) {
			Set<Fault> without = EnumSet.copyOf(best.faults);
			without.remove(fault);
			found = fewest(found, run(best.clients, best.acquisitions, without, best.originalEvents), best);
		}
		return found;
	}

	private static @Nullable Shrunk fewest(@Nullable Shrunk found, @Nullable Shrunk candidate, Shrunk best) {
		// Every candidate is a smaller run than the best: it need not take fewer events.
		if (candidate == null || candidate.events.size() > best.events.size()) {
			return found;
		}
		return (found == null || candidate.events.size() < found.events.size()) ? candidate : found;
	}

	private @Nullable Shrunk run(int clients, int acquisitions, Set<Fault> faults, int originalEvents) {
		LockSimulation simulation = new LockSimulation(this.seed, this.scripts, this.clientBug, faults);
		String violation = simulation.run(clients, acquisitions);
		if (violation == null) {
			return null;
		}
		List<String> events = simulation.events();
		return new Shrunk(this.seed, clients, acquisitions,
				faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults), violation, events,
				(originalEvents != 0) ? originalEvents : events.size());
	}

	/**
	 * A failing run, as small as the shrinker found it.
	 *
	 * @param seed the seed
	 * @param clients its clients
	 * @param acquisitions each client's acquisitions
	 * @param faults the faults and hold operations it draws
	 * @param violation what the checker found
	 * @param events every event of the run, up to the violation
	 * @param originalEvents the events of the run before shrinking
	 */
	record Shrunk(long seed, int clients, int acquisitions, Set<Fault> faults, String violation, List<String> events,
			int originalEvents) {

		/**
		 * Return the whole shrunk trace, to print: the seed, what the run was shrunk to,
		 * the violation, and every event.
		 */
		String report() {
			Set<Fault> without = EnumSet.allOf(Fault.class);
			without.removeAll(this.faults);
			return "seed " + this.seed + " fails: " + this.violation + "\nshrunk from " + this.originalEvents + " to "
					+ this.events.size() + " events: " + this.clients + " clients, " + this.acquisitions
					+ " acquisitions each" + (without.isEmpty() ? "" : ", without " + without)
					+ " (replaying the seed shrinks to this run again)\n" + String.join("\n", this.events);
		}

	}

}
