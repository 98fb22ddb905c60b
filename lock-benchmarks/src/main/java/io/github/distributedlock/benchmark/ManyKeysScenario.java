package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.ManyKeysResult;

/**
 * Scenario 3: many threads in two processes take random keys out of many, without holding them.
 */
final class ManyKeysScenario {

	static final int PROCESSES = 2;

	private static final long LEASE_MILLIS = 30_000;

	private static final long WAIT_MILLIS = 10_000;

	private ManyKeysScenario() {
	}

	static List<ManyKeysResult> run(BenchmarkRun run) {
		BenchmarkSettings settings = run.settings();
		List<ManyKeysResult> results = new ArrayList<>();
		for (Library library : Library.values()) {
			LoopSpec spec = new LoopSpec(library, KeyChoice.RANDOM, settings.manyKeysThreads(), settings.manyKeys(),
					library.id() + "-many", 0, LEASE_MILLIS, WAIT_MILLIS);
			run.loop(run.pool(PROCESSES), spec, settings.warmup(), false);
			run.redis().resetStats();
			double cpuBefore = run.redisCpuSeconds();
			PhaseResult phase = run.loop(run.pool(PROCESSES), spec, settings.measure(), true);
			double cpuMicros = (run.redisCpuSeconds() - cpuBefore) * 1e6 / Math.max(1, phase.reported());
			Map<String, Long> commands = run.serverCommands();
			double perAcquisition = commands.values().stream().mapToLong(Long::longValue).sum()
					/ (double) Math.max(1, phase.reported());
			ManyKeysResult result = new ManyKeysResult(library, PROCESSES, settings.manyKeysThreads(),
					settings.manyKeys(), AcquisitionAnalysis.perSecond(phase),
					AcquisitionAnalysis.latency(phase.acquisitions(), (a) -> a.released() - a.requested()),
					perAcquisition, cpuMicros, AcquisitionAnalysis.handoffs(phase.acquisitions()).overlaps(),
					phase.timeouts(), phase.errors());
			Progress.report("many keys", library, String.format("%.0f acq/s, p99 %.0f µs, %d overlaps",
					result.acquisitionsPerSecond(), result.acquireRelease().p99Micros(), result.overlaps()));
			results.add(result);
		}
		return results;
	}

}
