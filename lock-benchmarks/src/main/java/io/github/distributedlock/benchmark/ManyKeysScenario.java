package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.BenchmarkRun.Measured;
import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.ManyKeysResult;

/**
 * Scenario 3: many threads in two processes take random keys out of many, without holding
 * them.
 */
final class ManyKeysScenario {

	static final int PROCESSES = 2;

	static final long LEASE_MILLIS = 30_000;

	static final long WAIT_MILLIS = 10_000;

	private ManyKeysScenario() {
	}

	static List<ManyKeysResult> run(BenchmarkRun run) {
		BenchmarkSettings settings = run.settings();
		List<ManyKeysResult> results = new ArrayList<>();
		for (Library library : Library.compared()) {
			Measured measured = run.measure(run.pool(PROCESSES), spec(settings, library, "-many"));
			PhaseResult phase = measured.phase();
			ManyKeysResult result = new ManyKeysResult(library, PROCESSES, settings.manyKeysThreads(),
					settings.manyKeys(), AcquisitionAnalysis.perSecond(phase),
					AcquisitionAnalysis.latency(phase.acquisitions(), (a) -> a.released() - a.requested()),
					measured.commands(), measured.cost(), phase.clientCpuMicros(), phase.jitCpuMicros(),
					AcquisitionAnalysis.handoffs(phase.acquisitions()).overlaps(), phase.timeouts(), phase.errors());
			Progress.report("many keys", library,
					String.format("%.0f acq/s, p99 %.0f µs, Redis CPU %.0f µs, %.2f keys left per name, %d overlaps",
							result.acquisitionsPerSecond(), result.acquireRelease().p99Micros(),
							result.cost().cpuMicros(), result.cost().keysLeftPerName(), result.overlaps()));
			results.add(result);
		}
		return results;
	}

	/**
	 * The loop of this scenario, also run on Redis Cluster by scenario 6.
	 */
	static LoopSpec spec(BenchmarkSettings settings, Library library, String suffix) {
		return new LoopSpec(library, KeyChoice.RANDOM, settings.manyKeysThreads(), settings.manyKeys(),
				library.id() + suffix, 0, LEASE_MILLIS, WAIT_MILLIS);
	}

}
