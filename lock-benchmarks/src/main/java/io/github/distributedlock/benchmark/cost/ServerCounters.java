package io.github.distributedlock.benchmark.cost;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.distributedlock.test.RedisServer;

/**
 * The counters of a redis-server at one moment: calls per command, Lua included
 * ({@code INFO commandstats}), and the counters of {@code INFO stats} that a lock moves.
 * Differences of two readings give what a phase cost.
 *
 * @param calls calls per lowercase command name, the harness's own left out
 * @param stats the fields of {@link #STATS}
 */
record ServerCounters(Map<String, Long> calls, Map<String, Long> stats) {

	/**
	 * The {@code INFO stats} fields kept: key lookups that found a key or not, keys
	 * expired, and bytes the clients sent (requests, so the size of keys and arguments).
	 */
	static final List<String> STATS = List.of("keyspace_hits", "keyspace_misses", "expired_keys",
			"total_net_input_bytes");

	static ServerCounters take(RedisServer server) {
		Map<String, Long> calls = new TreeMap<>(server.commandCalls());
		calls.keySet().removeIf(ScriptTrace.HARNESS::contains);
		Map<String, Long> stats = new HashMap<>();
		for (String line : String.valueOf(server.command("INFO", "stats")).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && STATS.contains(line.substring(0, colon))) {
				stats.put(line.substring(0, colon), Long.parseLong(line.substring(colon + 1).trim()));
			}
		}
		return new ServerCounters(Map.copyOf(calls), Map.copyOf(stats));
	}

	/**
	 * Return what moved since an earlier reading; commands that did not run are left out.
	 */
	ServerCounters minus(ServerCounters earlier) {
		Map<String, Long> calls = new TreeMap<>();
		this.calls.forEach((name, count) -> {
			long moved = count - earlier.calls.getOrDefault(name, 0L);
			if (moved != 0) {
				calls.put(name, moved);
			}
		});
		Map<String, Long> stats = new HashMap<>();
		this.stats.forEach((name, count) -> stats.put(name, count - earlier.stats.getOrDefault(name, 0L)));
		return new ServerCounters(calls, stats);
	}

	long total() {
		return this.calls.values().stream().mapToLong(Long::longValue).sum();
	}

	long stat(String name) {
		return this.stats.getOrDefault(name, 0L);
	}

}
