package io.github.distributedlock.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.report.ClusterResult;
import io.github.distributedlock.benchmark.report.RedisCost;

/**
 * Scenario 6: the many-keys load of scenario 3, from the same two processes and threads,
 * on a Redis Cluster of one master and then of three, to see whether throughput grows
 * with the masters. Fresh worker JVMs run cluster clients of every library.
 */
final class ClusterScenario {

	static final int[] MASTERS = { 1, 3 };

	private ClusterScenario() {
	}

	static List<ClusterResult> run(BenchmarkRun run) {
		int processes = ManyKeysScenario.PROCESSES;
		List<ClusterShards> clusters = new ArrayList<>();
		List<WorkerProcess> workers = List.of();
		try {
			for (int masters : MASTERS) {
				clusters.add(ClusterShards.start(masters));
			}
			// Fresh JVMs start up together; each cluster's workers create their clients
			// only when first used.
			workers = run.startClusterWorkers(clusters.stream().map((c) -> c.masters().get(0)).toList(), processes);
			List<ClusterResult> results = new ArrayList<>();
			for (int i = 0; i < clusters.size(); i++) {
				List<WorkerProcess> clients = workers.subList(i * processes, (i + 1) * processes);
				results.addAll(run(run, clusters.get(i), clients));
				clients.forEach(WorkerProcess::close);
			}
			return results;
		}
		finally {
			workers.forEach(WorkerProcess::close);
			clusters.forEach(ClusterShards::close);
		}
	}

	private static List<ClusterResult> run(BenchmarkRun run, ClusterShards cluster, List<WorkerProcess> workers) {
		// Connect every library's client and warm its code before any is measured.
		for (Library library : Library.compared()) {
			run.loop(workers, ManyKeysScenario.spec(run.settings(), library, "-cluster"), run.settings().warmup(),
					false);
		}
		List<ClusterResult> results = new ArrayList<>();
		for (Library library : Library.compared()) {
			results.add(run(run, cluster, workers, library));
		}
		return results;
	}

	private static ClusterResult run(BenchmarkRun run, ClusterShards cluster, List<WorkerProcess> workers,
			Library library) {
		BenchmarkSettings settings = run.settings();
		LoopSpec spec = ManyKeysScenario.spec(settings, library, "-cluster");
		cluster.flushAll();
		RedisUsage start = RedisUsage.total(cluster.usage());
		run.loop(workers, spec, settings.warmup(), false);
		cluster.resetStats();
		List<RedisUsage> before = cluster.usage();
		PhaseResult phase = run.loop(workers, spec, settings.measure(), true);
		List<RedisUsage> after = cluster.usage();
		long commands = cluster.serverCommands();
		double seconds = (phase.endNanos() - phase.startNanos()) / 1e9;
		double busiest = 0;
		for (int i = 0; i < after.size(); i++) {
			busiest = Math.max(busiest, after.get(i).minus(before.get(i)).cpuSeconds() / seconds);
		}
		RedisUsage during = RedisUsage.total(after).minus(RedisUsage.total(before));
		RedisUsage left = RedisUsage.total(after).minus(start);
		long names = spec.distinctNames(phase.reported());
		RedisCost cost = new RedisCost(during.cpuMicrosPer(phase.reported()),
				commands / (double) Math.max(1, phase.reported()), names, left.keysPer(names), left.bytesPer(names),
				Double.NaN);
		ClusterResult result = new ClusterResult(library, cluster.masters().size(), ManyKeysScenario.PROCESSES,
				settings.manyKeysThreads(), settings.manyKeys(), AcquisitionAnalysis.perSecond(phase),
				AcquisitionAnalysis.latency(phase.acquisitions(), (a) -> a.released() - a.requested()), cost, busiest,
				AcquisitionAnalysis.handoffs(phase.acquisitions()).overlaps(), phase.timeouts(), phase.errors());
		Progress.report("cluster x" + result.masters(), library,
				String.format("%.0f acq/s, Redis CPU %.0f µs (all masters), busiest master %.0f %% busy, %d overlaps",
						result.acquisitionsPerSecond(), cost.cpuMicros(), busiest * 100, result.overlaps()));
		return result;
	}

}
