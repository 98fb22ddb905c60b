package io.github.distributedlock.benchmark.cost;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServers;

/**
 * Counts what an acquisition costs Redis, command by command, on a fresh redis-server on
 * a free loopback port: round trips, every command each script runs and the path it took,
 * request bytes, keys left per lock name and subscriptions. Counts only, no timings, so a
 * busy machine does not change them beyond the mix of paths that contention takes.
 * <p>
 * Run it with {@code lock-benchmarks/cost.sh} (options: {@code --acquisitions N},
 * {@code --warm-up N}, {@code --out FILE}); {@code docs/design/cost.md} reads its tables.
 */
public final class CommandCostMain {

	private static final Duration SHORT_HOLD = Duration.ofNanos(100_000);

	/**
	 * The phases, in the order they run.
	 */
	static final List<Phase> PHASES = List.of(
			new Phase("uncontended, a new name each time",
					"One template, one thread: acquire and release a lock of a new name each time, as the "
							+ "benchmark's scenario 1 does.",
					1, 1, true, Duration.ZERO),
			new Phase("uncontended, one name",
					"One template, one thread: acquire and release the same lock again and again.", 1, 1, false,
					Duration.ZERO),
			new Phase("2 templates, one name",
					"Two templates, each on its own connection factory (as two processes), one thread each, "
							+ "contending for one lock held ~100 µs each time.",
					2, 1, false, SHORT_HOLD),
			new Phase("1 template × 2 threads, one name",
					"Two threads of one template (one JVM) contending for one lock held ~100 µs: every hand-off "
							+ "is a same-JVM one.",
					1, 2, false, SHORT_HOLD),
			new Phase("4 templates, one name",
					"Four templates on their own connection factories, one thread each, one lock held ~100 µs.", 4, 1,
					false, SHORT_HOLD));

	private CommandCostMain() {
	}

	public static void main(String[] args) {
		int acquisitions = 2000;
		int warmUp = 200;
		Path out = Path.of("lock-benchmarks/target/command-cost.md");
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--acquisitions" -> acquisitions = Integer.parseInt(args[++i]);
				case "--warm-up" -> warmUp = Integer.parseInt(args[++i]);
				case "--out" -> out = Path.of(args[++i]);
				default -> throw new IllegalArgumentException(
						"Unknown option " + args[i] + "; expected --acquisitions N, --warm-up N or --out FILE");
			}
		}
		String report;
		try (RedisProcess redis = RedisServers.launch()) {
			List<PhaseCost> phases = measure(redis, acquisitions, warmUp);
			report = CostReport.markdown(header(redis, acquisitions, warmUp), phases);
		}
		writeReport(out, report);
	}

	/**
	 * Write a report to {@code out}, creating its folder, and print it.
	 */
	static void writeReport(Path out, String report) {
		try {
			Path parent = out.toAbsolutePath().getParent();
			if (parent != null) {
				Files.createDirectories(parent);
			}
			Files.writeString(out, report);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		System.out.println(report);
		System.out.println("Written to " + out.toAbsolutePath());
	}

	/**
	 * Run every phase on a server: each warms up (connections, script cache,
	 * subscriptions), then the server's keys are dropped and its counters read, the
	 * measured acquisitions run under MONITOR, and the counters, keys and subscriptions
	 * are read again.
	 */
	static List<PhaseCost> measure(RedisServer server, int acquisitions, int warmUp) {
		List<PhaseCost> costs = new ArrayList<>();
		for (Phase phase : PHASES) {
			server.flushAll();
			try (CostWorkload workload = new CostWorkload(server, phase.templates(), phase.threadsPerTemplate(),
					phase.newKeyEachTime(), phase.hold())) {
				workload.run(warmUp);
				server.flushAll();
				ServerCounters unwatched = ServerCounters.take(server);
				CostWorkload.Outcome plain = workload.run(acquisitions);
				unwatched = ServerCounters.take(server).minus(unwatched);
				server.flushAll();
				ServerCounters before = ServerCounters.take(server);
				ScriptTrace trace = ScriptTrace.start(server);
				CostWorkload.Outcome outcome = workload.run(acquisitions);
				ScriptTrace.Traced traced = trace.finish(server);
				ServerCounters after = ServerCounters.take(server);
				KeysLeft left = KeysLeft.take(server);
				costs.add(new PhaseCost(phase.name(), phase.description(), outcome, after.minus(before), traced, left,
						plain, unwatched));
			}
		}
		return costs;
	}

	private static String header(RedisServer server, int acquisitions, int warmUp) {
		String info = String.valueOf(server.command("INFO", "server"));
		String version = info.lines()
			.filter((line) -> line.startsWith("redis_version:"))
			.map((line) -> line.substring("redis_version:".length()).trim())
			.findFirst()
			.orElse("?");
		return "# Command cost per acquisition\n\n" + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", Redis "
				+ version + ", " + acquisitions + " measured acquisitions per phase after " + warmUp
				+ " to warm up. Written by `lock-benchmarks/cost.sh` (`CommandCostMain`). Counts come from "
				+ "`INFO commandstats` and `INFO stats` (every command, those run by scripts included) and from "
				+ "`MONITOR` (what clients sent, and which script ran which commands in which order).\n\n";
	}

	/**
	 * One phase.
	 *
	 * @param name its name in the report
	 * @param description what it does
	 * @param templates how many templates, each on its own connection factory
	 * @param threadsPerTemplate threads per template
	 * @param newKeyEachTime whether each acquisition takes a new name
	 * @param hold how long each hold lasts
	 */
	record Phase(String name, String description, int templates, int threadsPerTemplate, boolean newKeyEachTime,
			Duration hold) {

	}

}
