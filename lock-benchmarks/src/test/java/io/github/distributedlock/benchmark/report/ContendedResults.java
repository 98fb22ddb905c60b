package io.github.distributedlock.benchmark.report;

import java.util.List;
import java.util.Map;

import io.github.distributedlock.benchmark.Library;

/**
 * Builds scenario 2 results and the run around them for the report's tests.
 */
final class ContendedResults {

	private ContendedResults() {
	}

	/**
	 * Return a result whose figures all derive from its throughput, so that each table
	 * cell tells which row it came from.
	 */
	static ContendedResult of(Library library, ContendedShape shape, double perSecond, long overlaps) {
		LatencyStats handoff = new LatencyStats(1000, perSecond / 100, perSecond / 10, perSecond);
		CommandCounts commands = new CommandCounts(Map.of("evalsha", 3.0), Map.of("evalsha", 3.0, "hset", 1.0));
		RedisCost cost = new RedisCost(25, 4, 1, 0, Double.NaN, Double.NaN);
		LatencyStats remoteWait = (shape.processes() > 1)
				? new LatencyStats(100, perSecond / 50, perSecond / 5, perSecond * 7) : LatencyStats.NONE;
		return new ContendedResult(library, shape, (long) perSecond * 5, perSecond, handoff, handoff, 0.5,
				(shape.processes() > 1) ? 0.75 : 1, remoteWait, overlaps, commands, cost, 40, 1, 7, 0);
	}

	static BenchmarkResults run(List<ContendedResult> contended) {
		Environment environment = new Environment("2026-01-01T00:00:00Z", "full", "abc", "17", "—", "8.0", 2, "cpu",
				"0.5", "0.6");
		return new BenchmarkResults(environment, List.of(), contended, List.of(), List.of(), List.of(), List.of(),
				List.of(), null);
	}

}
