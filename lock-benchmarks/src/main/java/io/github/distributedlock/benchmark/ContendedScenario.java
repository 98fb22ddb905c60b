package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.AcquisitionAnalysis.Handoffs;
import io.github.distributedlock.benchmark.BenchmarkRun.Measured;
import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.ContendedResult;

/**
 * Scenario 2: one thread in each of 2, then 4, processes hammers one key, holding it
 * about 100 µs each time. With 2 processes, the reactive template is measured too, beside
 * the blocking one.
 */
final class ContendedScenario {

	static final long HOLD_MICROS = 100;

	private static final long LEASE_MILLIS = 30_000;

	private static final long WAIT_MILLIS = 10_000;

	private ContendedScenario() {
	}

	static List<ContendedResult> run(BenchmarkRun run) {
		List<ContendedResult> results = new ArrayList<>();
		for (int processes : new int[] { 2, 4 }) {
			for (Library library : Library.compared()) {
				results.add(run(run, library, processes));
				if (library == Library.THIS_PROJECT && processes == 2) {
					results.add(run(run, Library.THIS_PROJECT_REACTIVE, processes));
				}
			}
		}
		return results;
	}

	private static ContendedResult run(BenchmarkRun run, Library library, int processes) {
		LoopSpec spec = new LoopSpec(library, KeyChoice.ONE, 1, 1, library.id() + "-contended-" + processes,
				HOLD_MICROS, LEASE_MILLIS, WAIT_MILLIS);
		Measured measured = run.measure(run.pool(processes), spec);
		PhaseResult phase = measured.phase();
		Handoffs handoffs = AcquisitionAnalysis.handoffs(phase.acquisitions());
		ContendedResult result = new ContendedResult(library, processes, phase.acquisitions().size(),
				AcquisitionAnalysis.perSecond(phase),
				AcquisitionAnalysis.latency(phase.acquisitions(), (a) -> a.acquired() - a.requested()), handoffs.gaps(),
				handoffs.share(), handoffs.overlaps(), measured.commands(), measured.cost(), phase.clientCpuMicros(),
				phase.jitCpuMicros(), phase.timeouts(), phase.errors());
		Progress.report("contended x" + processes, library, String.format(
				"%.0f acq/s, hand-off p50 %.0f µs p99 %.0f µs, %.2f round trips, client CPU %.1f µs (JIT %.1f µs), "
						+ "%d overlaps",
				result.acquisitionsPerSecond(), result.handoffGap().p50Micros(), result.handoffGap().p99Micros(),
				result.commands().roundTrips(), result.clientCpuMicros(), result.jitCpuMicros(), result.overlaps()));
		return result;
	}

}
