package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.BenchmarkRun.Measured;
import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.UncontendedResult;

/**
 * Scenario 1: one thread of one process acquires and releases a new key each time, so nothing ever waits.
 */
final class UncontendedScenario {

	private static final long LEASE_MILLIS = 30_000;

	private static final long WAIT_MILLIS = 10_000;

	private UncontendedScenario() {
	}

	static List<UncontendedResult> run(BenchmarkRun run) {
		List<UncontendedResult> results = new ArrayList<>();
		for (Library library : Library.values()) {
			LoopSpec spec = new LoopSpec(library, KeyChoice.DISTINCT, 1, 0, library.id() + "-uncontended", 0,
					LEASE_MILLIS, WAIT_MILLIS);
			Measured measured = run.measure(run.pool(1), spec);
			List<Acquisition> acquisitions = measured.phase().acquisitions();
			UncontendedResult result = new UncontendedResult(library,
					AcquisitionAnalysis.latency(acquisitions, (a) -> a.released() - a.requested()),
					AcquisitionAnalysis.latency(acquisitions, (a) -> a.acquired() - a.requested()),
					AcquisitionAnalysis.perSecond(measured.phase()), measured.commands(), measured.redisCpuMicros(),
					measured.phase().timeouts(), measured.phase().errors());
			Progress.report("uncontended", library, String.format("p50 %.0f µs, p99 %.0f µs, %.2f round trips",
					result.acquireRelease().p50Micros(), result.acquireRelease().p99Micros(),
					result.commands().roundTrips()));
			results.add(result);
		}
		return results;
	}

}
