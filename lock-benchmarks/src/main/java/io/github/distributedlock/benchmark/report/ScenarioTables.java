package io.github.distributedlock.benchmark.report;

import java.util.List;
import java.util.Locale;

/**
 * The Markdown tables of the six scenarios.
 */
final class ScenarioTables {

	private static final String MICROS = "%.0f µs";

	private static final String CLIENT_CPU = "client CPU / acq. (worker processes, without JIT)";

	private static final String JIT_CPU = "JIT compiler CPU / acq.";

	private static final String LOCAL_SHARE = "next holder in same process";

	private static final String REMOTE_WAIT = "longest remote wait";

	private static final String NOT_APPLICABLE = "n/a";

	private ScenarioTables() {
	}

	static String uncontended(List<UncontendedResult> results) {
		return new MarkdownTable<>(results, UncontendedResult::library)
			.figure("acquire+release p50", (r) -> r.acquireRelease().p50Micros(), MICROS, true)
			.figure("p99", (r) -> r.acquireRelease().p99Micros(), MICROS, true)
			.figure("acquire p50", (r) -> r.acquire().p50Micros(), MICROS, true)
			.figure("ops/s", UncontendedResult::opsPerSecond, "%.0f", false)
			.figure("round trips", (r) -> r.commands().roundTrips(), "%.2f", true)
			.cost(UncontendedResult::cost)
			.figure(CLIENT_CPU, UncontendedResult::clientCpuMicros, "%.1f µs", true)
			.figure(JIT_CPU, UncontendedResult::jitCpuMicros, "%.1f µs", true)
			.text("timeouts / errors", (r) -> r.timeouts() + " / " + r.errors())
			.render();
	}

	static String contended(List<ContendedResult> results, ContendedShape shape) {
		List<ContendedResult> rows = results.stream().filter((r) -> r.shape().equals(shape)).toList();
		MarkdownTable<ContendedResult> table = new MarkdownTable<>(rows, ContendedResult::library)
			.figure("acquisitions/s", ContendedResult::acquisitionsPerSecond, "%.0f", false)
			.figure("hand-off p50", (r) -> r.handoffGap().p50Micros(), MICROS, true)
			.figure("hand-off p99", (r) -> r.handoffGap().p99Micros(), MICROS, true)
			.figure("hand-off max", (r) -> r.handoffGap().maxMicros(), MICROS, true);
		// With one process no hand-off can cross processes: both figures would read the
		// same for every library (100 %, none), so the table says so instead.
		if (shape.processes() > 1) {
			table.text(LOCAL_SHARE, (r) -> percent(r.localShare()))
				.figure(REMOTE_WAIT, (r) -> r.remoteWait().maxMicros(), MICROS, true);
		}
		else {
			table.text(LOCAL_SHARE, (r) -> NOT_APPLICABLE).text(REMOTE_WAIT, (r) -> NOT_APPLICABLE);
		}
		return table.figure("acquire wait p99", (r) -> r.acquireWait().p99Micros(), MICROS, true)
			.figure("acquire wait max", (r) -> r.acquireWait().maxMicros(), MICROS, true)
			.figure("round trips / acq.", (r) -> r.commands().roundTrips(), "%.2f", true)
			.cost(ContendedResult::cost)
			.figure(CLIENT_CPU, ContendedResult::clientCpuMicros, "%.1f µs", true)
			.figure(JIT_CPU, ContendedResult::jitCpuMicros, "%.1f µs", true)
			.text("changed hands", (r) -> percent(r.handoffShare()))
			.text("overlaps", (r) -> Long.toString(r.overlaps()))
			.text("timeouts / errors", (r) -> r.timeouts() + " / " + r.errors())
			.render();
	}

	static String manyKeys(List<ManyKeysResult> results) {
		return new MarkdownTable<>(results, ManyKeysResult::library)
			.figure("acquisitions/s", ManyKeysResult::acquisitionsPerSecond, "%.0f", false)
			.figure("acquire+release p50", (r) -> r.acquireRelease().p50Micros(), MICROS, true)
			.figure("p99", (r) -> r.acquireRelease().p99Micros(), MICROS, true)
			.figure("round trips / acq.", (r) -> r.commands().roundTrips(), "%.2f", true)
			.cost(ManyKeysResult::cost)
			.figure(CLIENT_CPU, ManyKeysResult::clientCpuMicros, "%.1f µs", true)
			.figure(JIT_CPU, ManyKeysResult::jitCpuMicros, "%.1f µs", true)
			.text("overlaps", (r) -> Long.toString(r.overlaps()))
			.text("timeouts / errors", (r) -> r.timeouts() + " / " + r.errors())
			.render();
	}

	static String crash(List<CrashResult> results) {
		return new MarkdownTable<>(results, CrashResult::library)
			.figure("after lease end, median", CrashResult::medianMillis, "%.1f ms", true)
			.figure("max", CrashResult::maxMillis, "%.1f ms", true)
			.text("trials", (r) -> Integer.toString(r.delaysMillis().size() + r.timeouts()))
			.text("each (ms)",
					(r) -> String.join(", ",
							r.delaysMillis().stream().map((d) -> String.format(Locale.ROOT, "%.1f", d)).toList()))
			.text("waiter's wait time", (r) -> r.waitTime().toMillis() + " ms")
			.text("timeouts", (r) -> Integer.toString(r.timeouts()))
			.render();
	}

	static String waiters(List<WaitersResult> results) {
		return new MarkdownTable<>(results, WaitersResult::library)
			.figure("heap per waiter", (r) -> (double) r.heapPerWaiterBytes(), "%.0f B", true)
			.figure("RSS per process", (r) -> r.rssBytes() / 1048576.0, "%.0f MiB", true)
			.figure("platform threads (peak)", (r) -> (double) r.peakPlatformThreads(), "%.0f", true)
			.figure("Redis connections", (r) -> (double) r.redisConnections(), "%.0f", true)
			.figure("subscriptions", (r) -> (double) (r.subscriptions() + r.patterns()), "%.0f", true)
			.text("channels / patterns", (r) -> r.channels() + " / " + r.patterns())
			.figure("time to drain", WaitersResult::drainMillis, "%.0f ms", true)
			.text("drained?",
					(r) -> (r.timeouts() + r.errors() == 0) ? "yes"
							: "**no**: " + r.timeouts() + " gave up after " + r.waitSeconds() + " s")
			.cost(WaitersResult::cost)
			.text("acquired / timeouts / errors", (r) -> r.acquisitions() + " / " + r.timeouts() + " / " + r.errors())
			.text("blocker's locks left after its release", (r) -> Long.toString(r.leftLocked()))
			.text("overlaps", (r) -> Long.toString(r.overlaps()))
			.render();
	}

	static String cluster(List<ClusterResult> results) {
		return new MarkdownTable<>(results, ClusterResult::library)
			.text("masters", (r) -> Integer.toString(r.masters()))
			.text("acquisitions/s", (r) -> String.format(Locale.ROOT, "%.0f", r.acquisitionsPerSecond()))
			.text("p99", (r) -> String.format(Locale.ROOT, MICROS, r.acquireRelease().p99Micros()))
			.text("busiest master's main thread", (r) -> percent(r.busiestMasterShare()))
			.text("Redis CPU / acq., all masters", (r) -> String.format(Locale.ROOT, MICROS, r.cost().cpuMicros()))
			.text("Redis commands / acq.", (r) -> String.format(Locale.ROOT, "%.2f", r.cost().commands()))
			.text("keys left / name", (r) -> String.format(Locale.ROOT, "%.2f", r.cost().keysLeftPerName()))
			.text("bytes left / name", (r) -> String.format(Locale.ROOT, "%.0f B", r.cost().bytesLeftPerName()))
			.text("overlaps", (r) -> Long.toString(r.overlaps()))
			.text("timeouts / errors", (r) -> r.timeouts() + " / " + r.errors())
			.render();
	}

	static String commands(List<UncontendedResult> uncontended, List<ContendedResult> contended) {
		StringBuilder out = new StringBuilder();
		out.append("| scenario | library | client-issued per acquisition (MONITOR) "
				+ "| executed by Redis per acquisition, inside Lua included (INFO commandstats) |\n");
		out.append("| --- | --- | --- | --- |\n");
		for (UncontendedResult r : uncontended) {
			out.append(row("uncontended", r.library().title(), r.commands()));
		}
		for (ContendedResult r : contended) {
			out.append(row("contended " + r.shape().label(), r.library().title(), r.commands()));
		}
		return out.toString();
	}

	private static String row(String scenario, String library, CommandCounts commands) {
		return "| " + scenario + " | " + library + " | " + commands.clientBreakdown() + " | "
				+ commands.serverBreakdown() + " |\n";
	}

	private static String percent(double share) {
		if (Double.isNaN(share)) {
			return "—";
		}
		return String.format(Locale.ROOT, "%.0f %%", share * 100);
	}

}
