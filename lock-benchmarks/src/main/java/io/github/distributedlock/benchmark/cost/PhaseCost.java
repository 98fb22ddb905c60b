package io.github.distributedlock.benchmark.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What one measured phase cost Redis.
 *
 * @param name the phase's name
 * @param description what the phase does
 * @param outcome what the workload did
 * @param moved how the server's counters moved (every command, Lua included)
 * @param traced what MONITOR saw: commands sent, and each script's commands and paths
 * @param left keys and subscriptions at the end of the phase, templates still open
 * @param unwatchedOutcome what the same workload did in a run without MONITOR
 * @param unwatched how the counters moved in that run
 */
record PhaseCost(String name, String description, CostWorkload.Outcome outcome, ServerCounters moved,
		ScriptTrace.Traced traced, KeysLeft left, CostWorkload.Outcome unwatchedOutcome, ServerCounters unwatched) {

	long acquisitions() {
		return Math.max(1, this.outcome.acquisitions());
	}

	double perAcquisition(long count) {
		return (double) count / acquisitions();
	}

	/**
	 * Return the commands Redis ran per acquisition in the run without MONITOR.
	 */
	double unwatchedCommands() {
		return (double) this.unwatched.total() / Math.max(1, this.unwatchedOutcome.acquisitions());
	}

	/**
	 * Return how often a command ran per acquisition in the run without MONITOR.
	 */
	double unwatched(String command) {
		return (double) this.unwatched.calls().getOrDefault(command, 0L)
				/ Math.max(1, this.unwatchedOutcome.acquisitions());
	}

	/**
	 * Return the round trips per acquisition: every command a client sent.
	 */
	double roundTrips() {
		return perAcquisition(this.traced.sent().values().stream().mapToLong(Long::longValue).sum());
	}

	/**
	 * Return the commands Redis ran per acquisition, those of scripts included.
	 */
	double commands() {
		return perAcquisition(this.moved.total());
	}

	/**
	 * Return the commands whose count in {@code INFO commandstats} differs from what
	 * MONITOR saw, sent or run by a script: none when every command was traced.
	 */
	List<String> untraced() {
		List<String> differences = new ArrayList<>();
		Map<String, Long> inScripts = this.traced.inScripts();
		TreeSet<String> names = new TreeSet<>(this.moved.calls().keySet());
		names.addAll(this.traced.sent().keySet());
		names.addAll(inScripts.keySet());
		for (String command : names) {
			long counted = this.moved.calls().getOrDefault(command, 0L);
			long seen = this.traced.sent().getOrDefault(command, 0L) + inScripts.getOrDefault(command, 0L);
			if (counted != seen) {
				differences.add(command + " counted " + counted + ", traced " + seen);
			}
		}
		return differences;
	}

}
