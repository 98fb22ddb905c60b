package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.AcquisitionAnalysis.Handoffs;
import io.github.distributedlock.benchmark.BenchmarkRun.Measured;
import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.ContendedResult;
import io.github.distributedlock.benchmark.report.ContendedShape;

/**
 * Scenario 2: one thread in each of 2, then 4, processes, then 8 threads in each of 2
 * processes, hammer one key, holding it about 100 µs each time. With 2 processes, the
 * reactive template is measured too, beside the blocking one.
 */
final class ContendedScenario {

	static final long HOLD_MICROS = 100;

	private static final long LEASE_MILLIS = 30_000;

	private static final long WAIT_MILLIS = 10_000;

	private ContendedScenario() {
	}

	static List<ContendedResult> run(BenchmarkRun run) {
		List<ContendedResult> results = new ArrayList<>();
		for (ContendedShape shape : ContendedShape.ALL) {
			for (Library library : libraries(shape)) {
				results.add(run(run, library, shape));
			}
		}
		return results;
	}

	/**
	 * Return the libraries to measure with this shape, in the order they run: the
	 * reactive template after the blocking one, with 2 processes only.
	 */
	static List<Library> libraries(ContendedShape shape) {
		List<Library> libraries = new ArrayList<>();
		for (Library library : Library.compared()) {
			libraries.add(library);
			if (library == Library.THIS_PROJECT && shape.processes() == 2) {
				libraries.add(Library.THIS_PROJECT_REACTIVE);
			}
		}
		return libraries;
	}

	private static ContendedResult run(BenchmarkRun run, Library library, ContendedShape shape) {
		LoopSpec spec = new LoopSpec(library, KeyChoice.ONE, shape.threadsPerProcess(), 1,
				library.id() + "-contended-" + shape.processes() + "x" + shape.threadsPerProcess(), HOLD_MICROS,
				LEASE_MILLIS, WAIT_MILLIS);
		Measured measured = run.measure(run.pool(shape.processes()), spec);
		PhaseResult phase = measured.phase();
		Handoffs handoffs = AcquisitionAnalysis.handoffs(phase.acquisitions());
		ContendedResult result = new ContendedResult(library, shape, phase.acquisitions().size(),
				AcquisitionAnalysis.perSecond(phase),
				AcquisitionAnalysis.latency(phase.acquisitions(), (a) -> a.acquired() - a.requested()), handoffs.gaps(),
				handoffs.share(), handoffs.overlaps(), measured.commands(), measured.cost(), phase.clientCpuMicros(),
				phase.jitCpuMicros(), phase.timeouts(), phase.errors());
		Progress.report("contended " + shape.label(), library, String.format(
				"%.0f acq/s, hand-off p50 %.0f µs p99 %.0f µs, %.2f round trips, client CPU %.1f µs (JIT %.1f µs), "
						+ "%d overlaps",
				result.acquisitionsPerSecond(), result.handoffGap().p50Micros(), result.handoffGap().p99Micros(),
				result.commands().roundTrips(), result.clientCpuMicros(), result.jitCpuMicros(), result.overlaps()));
		return result;
	}

}
