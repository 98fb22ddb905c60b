package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

import io.github.distributedlock.benchmark.AcquisitionAnalysis.Handoffs;
import io.github.distributedlock.benchmark.BenchmarkRun.Measured;
import io.github.distributedlock.benchmark.LoopSpec.KeyChoice;
import io.github.distributedlock.benchmark.report.ContendedResult;
import io.github.distributedlock.benchmark.report.ContendedShape;

/**
 * Scenario 2: one thread in each of 2, then 4, processes, then 8 threads in each of 2
 * processes, then 16 threads in one process, hammer one key, holding it about 100 µs each
 * time. With 2 processes, the reactive template is measured too, beside the blocking one.
 * <p>
 * Each library runs in fresh worker JVMs of its own. In shared ones, the code every
 * library uses (Lettuce, Netty, the JDK) was compiled for whichever ran before, and this
 * project's figures moved by about a quarter with the order the libraries ran in.
 */
final class ContendedScenario {

	static final long HOLD_MICROS = 100;

	private static final long LEASE_MILLIS = 30_000;

	private static final long WAIT_MILLIS = 10_000;

	private static final int PRIME_THREADS = 2;

	private static final int PRIME_KEYS = 8;

	private ContendedScenario() {
	}

	static List<ContendedResult> run(BenchmarkRun run) {
		List<ContendedResult> results = new ArrayList<>();
		for (Library library : libraries(run.settings())) {
			List<ContendedShape> shapes = shapes(library).stream().filter(run.settings()::measures).toList();
			if (shapes.isEmpty()) {
				continue;
			}
			int processes = shapes.stream().mapToInt(ContendedShape::processes).max().orElse(0);
			// Each library runs on fresh JVMs, so that none runs on code that the JIT
			// compiled for another. No figure of a smoke run is read: there the
			// libraries share the pool's JVMs, which spares 4 JVM starts per library.
			boolean fresh = !run.settings().smoke();
			List<WorkerProcess> workers = fresh ? run.startWorkers(processes) : run.pool(processes);
			try {
				prime(run, workers, library);
				for (ContendedShape shape : shapes) {
					results.add(run(run, workers.subList(0, shape.processes()), library, shape));
				}
			}
			finally {
				if (fresh) {
					workers.forEach(WorkerProcess::close);
				}
			}
		}
		// Report order: by shape, each in the order the libraries ran (a stable sort).
		results.sort(Comparator.comparingInt((result) -> ContendedShape.ALL.indexOf(result.shape())));
		return results;
	}

	/**
	 * Return the libraries in the order they run ({@link Library#contended()}); in
	 * reverse with {@code --reverse}, to check that the order no longer matters.
	 */
	static List<Library> libraries(BenchmarkSettings settings) {
		List<Library> libraries = new ArrayList<>(Library.contended().stream().filter(settings::measures).toList());
		if (settings.reversed()) {
			Collections.reverse(libraries);
		}
		return libraries;
	}

	/**
	 * Return the shapes a library is measured with: the reactive template with 2
	 * processes only. Its engine is the blocking template's, which every shape measures;
	 * its rows show what its Reactor hop adds, and two shapes are enough for that. The
	 * engine floor with processes of one thread only: issue 50's targets for hand-offs
	 * between processes, which a layout of the engine's state could move.
	 */
	static List<ContendedShape> shapes(Library library) {
		return switch (library) {
			case THIS_PROJECT_REACTIVE ->
				ContendedShape.ALL.stream().filter((shape) -> shape.processes() == 2).toList();
			case ENGINE_FLOOR -> ContendedShape.ALL.stream().filter((shape) -> shape.threadsPerProcess() == 1).toList();
			default -> ContendedShape.ALL;
		};
	}

	/**
	 * Warm the library's fresh workers up, all of them, for one warm-up period before its
	 * first measured phase. On one key, a worker runs only a few hundred acquisitions a
	 * second, too few for the JIT to finish compiling in 10 s; over a few keys and two
	 * threads each, it runs many more, through both the free and the contended path.
	 */
	private static void prime(BenchmarkRun run, List<WorkerProcess> workers, Library library) {
		LoopSpec spec = new LoopSpec(library, KeyChoice.RANDOM, PRIME_THREADS, PRIME_KEYS,
				library.id() + "-contended-prime", HOLD_MICROS, LEASE_MILLIS, WAIT_MILLIS);
		run.loop(workers, spec, run.settings().warmup(), false);
	}

	private static ContendedResult run(BenchmarkRun run, List<WorkerProcess> workers, Library library,
			ContendedShape shape) {
		LoopSpec spec = new LoopSpec(library, KeyChoice.ONE, shape.threadsPerProcess(), 1,
				library.id() + "-contended-" + shape.processes() + "x" + shape.threadsPerProcess(), HOLD_MICROS,
				LEASE_MILLIS, WAIT_MILLIS);
		Measured measured = run.measure(workers, spec);
		PhaseResult phase = measured.phase();
		Handoffs handoffs = AcquisitionAnalysis.handoffs(phase.acquisitions());
		ContendedResult result = new ContendedResult(library, shape, phase.acquisitions().size(),
				AcquisitionAnalysis.perSecond(phase),
				AcquisitionAnalysis.latency(phase.acquisitions(), (a) -> a.acquired() - a.requested()), handoffs.gaps(),
				handoffs.share(), handoffs.localShare(), handoffs.remoteWait(), handoffs.overlaps(),
				measured.commands(), measured.cost(), phase.clientCpuMicros(), phase.jitCpuMicros(), phase.timeouts(),
				phase.errors());
		Progress.report("contended " + shape.label(), library, String.format(
				"%.0f acq/s, hand-off p50 %.0f µs p99 %.0f µs, %.0f %% local, longest remote wait %.0f µs, "
						+ "%.2f round trips, client CPU %.1f µs (JIT %.1f µs), %d overlaps",
				result.acquisitionsPerSecond(), result.handoffGap().p50Micros(), result.handoffGap().p99Micros(),
				result.localShare() * 100, result.remoteWait().maxMicros(), result.commands().roundTrips(),
				result.clientCpuMicros(), result.jitCpuMicros(), result.overlaps()));
		return result;
	}

}
