package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.BenchmarkRun.Measured;
import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.UncontendedResult;

/**
 * Scenario 1: one thread of one process acquires and releases a new key each time, so
 * nothing ever waits; then the same process holds many locks at once, to weigh what Redis
 * keeps per held lock. The fenced floor is measured here beside the others
 * ({@link Library#uncontended()}).
 */
final class UncontendedScenario {

	private static final long LEASE_MILLIS = 30_000;

	private static final long WAIT_MILLIS = 10_000;

	private UncontendedScenario() {
	}

	static List<UncontendedResult> run(BenchmarkRun run) {
		List<UncontendedResult> results = new ArrayList<>();
		for (Library library : Library.uncontended()) {
			LoopSpec spec = new LoopSpec(library, KeyChoice.DISTINCT, 1, 0, library.id() + "-uncontended", 0,
					LEASE_MILLIS, WAIT_MILLIS);
			Measured measured = run.measure(run.pool(1), spec);
			double bytesPerHeldLock = HeldLocks.bytesPerLock(run, library);
			List<Acquisition> acquisitions = measured.phase().acquisitions();
			UncontendedResult result = new UncontendedResult(library,
					AcquisitionAnalysis.latency(acquisitions, (a) -> a.released() - a.requested()),
					AcquisitionAnalysis.latency(acquisitions, (a) -> a.acquired() - a.requested()),
					AcquisitionAnalysis.perSecond(measured.phase()), measured.commands(),
					measured.cost().withBytesPerHeldLock(bytesPerHeldLock), measured.phase().clientCpuMicros(),
					measured.phase().jitCpuMicros(), measured.phase().timeouts(), measured.phase().errors());
			Progress.report("uncontended", library, String.format(
					"p50 %.0f µs, p99 %.0f µs, %.2f round trips, Redis CPU %.0f µs, client CPU %.1f µs (JIT %.1f µs), "
							+ "%.2f keys and %.0f B left per name, %.0f B per held lock",
					result.acquireRelease().p50Micros(), result.acquireRelease().p99Micros(),
					result.commands().roundTrips(), result.cost().cpuMicros(), result.clientCpuMicros(),
					result.jitCpuMicros(), result.cost().keysLeftPerName(), result.cost().bytesLeftPerName(),
					result.cost().bytesPerHeldLock()));
			results.add(result);
		}
		return results;
	}

}
