package io.github.distributedlock.benchmark.report;

import java.util.List;

/**
 * The Markdown report of one run: environment, targets, one table per scenario, command
 * breakdown and method.
 */
public final class MarkdownReport {

	private MarkdownReport() {
	}

	/**
	 * Render the report.
	 * @param results the results
	 * @param chart the file name of the chart, relative to the report
	 * @return the Markdown
	 */
	public static String render(BenchmarkResults results, String chart) {
		StringBuilder md = new StringBuilder();
		header(md, results.environment(), chart);
		for (String failure : results.failures()) {
			md.append("> **Scenario failed:** ").append(failure).append("\n\n");
		}
		md.append("## Targets\n\n");
		md.append("| target | measured | verdict |\n| --- | --- | --- |\n");
		for (Verdict verdict : Targets.evaluate(results)) {
			md.append("| ")
				.append(verdict.target())
				.append(" | ")
				.append(verdict.measured())
				.append(" | **")
				.append(verdict.word())
				.append("** |\n");
		}
		scenarios(md, results);
		md.append("\n## Scale model: one Redis shard\n\n").append(ScaleModel.render(results));
		md.append("\n## Notes on the peers\n\n").append(Method.PEERS);
		md.append("\n## Commands seen\n\n");
		md.append(ScenarioTables.commands(results.uncontended(), results.contended()));
		if (results.jmh() != null) {
			md.append("\n## JMH microbenchmarks (in-process hot paths)\n\n").append(results.jmh());
		}
		md.append("\n## How this was measured\n\n").append(Method.TEXT);
		return md.toString();
	}

	private static void header(StringBuilder md, Environment env, String chart) {
		md.append("# Lock benchmark results\n\n");
		md.append("| | |\n| --- | --- |\n");
		md.append("| date | ").append(env.date()).append(" |\n");
		md.append("| mode | ").append(env.mode()).append(" |\n");
		md.append("| engine | ").append(env.engine()).append(" |\n");
		md.append("| JDK | ")
			.append(env.jdk())
			.append(" (coordinator and workers); ")
			.append(env.waiterJdk())
			.append(" (scenario 5) |\n");
		md.append("| Redis | ")
			.append(env.redisVersion())
			.append(", one fresh redis-server on loopback shared by every library |\n");
		md.append("| machine | ")
			.append(env.cores())
			.append(" cores, ")
			.append(env.cpu())
			.append(", load average ")
			.append(env.loadBefore())
			.append(" before, ")
			.append(env.loadAfter())
			.append(" after |\n\n");
		md.append("> **Caveat:** on a small machine Redis, the coordinator and every worker JVM share the cores (see "
				+ "the load averages above), so the figures are noisy; compare libraries within one table rather than "
				+ "across runs.\n\n");
		if (loaded(env)) {
			md.append("> **This machine was busy with other work:** the load average was above its ")
				.append(env.cores())
				.append(" cores when the run started or ended, so other processes (such as parallel builds) took "
						+ "CPU from Redis and the clients and every figure is noisier than usual. Libraries were still "
						+ "measured in the same run against the same server, so ratios within a table hold best.\n\n");
		}
		md.append("Each figure is absolute, then in brackets its ratio to the floor and to the best peer "
				+ "(the better of Redisson and Spring Integration for that figure): `value (×floor / ×best peer)`.\n\n");
		md.append("![Contended hand-off](").append(chart).append(")\n\n");
	}

	/**
	 * Return whether the one-minute load average before or after the run exceeded the
	 * cores.
	 */
	private static boolean loaded(Environment env) {
		for (String load : List.of(env.loadBefore(), env.loadAfter())) {
			try {
				if (Double.parseDouble(load.split(" ")[0]) > env.cores()) {
					return true;
				}
			}
			catch (NumberFormatException ex) {
				// Unknown load: say nothing.
			}
		}
		return false;
	}

	private static void scenarios(StringBuilder md, BenchmarkResults results) {
		md.append("\n## 1. Uncontended: one thread, a new key each time\n\n");
		md.append(ScenarioTables.uncontended(results.uncontended()));
		for (ContendedShape shape : ContendedShape.ALL) {
			md.append("\n## 2. Contended hand-off: ").append(shape.describe()).append(", one key, ~100 µs holds\n\n");
			if (shape.equals(ContendedShape.ALL.get(0))) {
				md.append("*Next holder in same process*: of all consecutive holds of the key, the share whose next "
						+ "holder ran in the same process as the previous one (the same thread included). "
						+ "*Longest remote wait*: the longest acquire wait (acquire call to its return) of an "
						+ "acquisition that took the key from a holder in another process, so a lock that keeps "
						+ "handing the key around one process shows it here. Both read n/a with one process.\n\n");
			}
			if (shape.processes() == 1) {
				md.append("Every hand-off goes between threads of the one process: a gap is counted whenever the next "
						+ "holder is another thread, and an overlap whenever any two threads held the key at once.\n\n");
			}
			else if (shape.threadsPerProcess() > 1) {
				md.append("Hand-offs go between threads of one process as well as across processes: a gap is counted "
						+ "whenever the next holder is another thread, and an overlap whenever any two threads, of one "
						+ "process or of two, held the key at once.\n\n");
			}
			md.append(ScenarioTables.contended(results.contended(), shape));
		}
		md.append("\n## 3. Many keys, many threads\n\n");
		manyKeysHeading(md, results.manyKeys());
		md.append(ScenarioTables.manyKeys(results.manyKeys()));
		md.append("\n## 4. Crash recovery: holder killed with SIGKILL\n\n");
		md.append(ScenarioTables.crash(results.crash()));
		md.append("\n## 5. Many waiters\n\n");
		waitersHeading(md, results.waiters());
		md.append(ScenarioTables.waiters(results.waiters()));
		md.append("\n## 6. Many keys on Redis Cluster: 1 master, then 3\n\n");
		clusterHeading(md, results.cluster());
		md.append(ScenarioTables.cluster(results.cluster()));
	}

	private static void manyKeysHeading(StringBuilder md, List<ManyKeysResult> results) {
		if (!results.isEmpty()) {
			ManyKeysResult first = results.get(0);
			md.append(first.processes())
				.append(" processes × ")
				.append(first.threadsPerProcess())
				.append(" threads over ")
				.append(first.keys())
				.append(" random keys, no hold.\n\n");
		}
	}

	private static void clusterHeading(StringBuilder md, List<ClusterResult> results) {
		if (!results.isEmpty()) {
			ClusterResult first = results.get(0);
			md.append("Scenario 3's load (")
				.append(first.processes())
				.append(" processes × ")
				.append(first.threadsPerProcess())
				.append(" threads over ")
				.append(first.keys())
				.append(" random keys, no hold) from fresh worker JVMs running each library's cluster client, on a "
						+ "real Redis Cluster of one master owning every slot, then of three masters; no replicas. "
						+ "Every node shares this machine's cores with the clients, so more masters only help as "
						+ "far as a core is free for them: the busiest master's main-thread share shows whether "
						+ "Redis was the limit.\n\n");
		}
	}

	private static void waitersHeading(StringBuilder md, List<WaitersResult> results) {
		if (!results.isEmpty()) {
			WaitersResult first = results.get(0);
			md.append(first.waiters())
				.append(" waiting ")
				.append(first.virtualThreads() ? "virtual" : "platform (no JDK 21+ found)")
				.append(" threads in ")
				.append(first.processes())
				.append(" processes (Java ")
				.append(first.jdk())
				.append(") on ")
				.append(first.keys())
				.append(" keys held by a blocker in another process; the floor has no way to wait but spinning, so "
						+ "it is left out and ratios are to the best peer only.\n\n");
		}
	}

}
