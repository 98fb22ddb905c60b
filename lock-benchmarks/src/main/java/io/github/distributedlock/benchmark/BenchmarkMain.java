package io.github.distributedlock.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.distributedlock.benchmark.jmh.JmhSuite;
import io.github.distributedlock.benchmark.report.BenchmarkResults;
import io.github.distributedlock.benchmark.report.ClusterResult;
import io.github.distributedlock.benchmark.report.ContendedResult;
import io.github.distributedlock.benchmark.report.CrashResult;
import io.github.distributedlock.benchmark.report.Environment;
import io.github.distributedlock.benchmark.report.ManyKeysResult;
import io.github.distributedlock.benchmark.report.ReportWriter;
import io.github.distributedlock.benchmark.report.Targets;
import io.github.distributedlock.benchmark.report.UncontendedResult;
import io.github.distributedlock.benchmark.report.Verdict;
import io.github.distributedlock.benchmark.report.WaitersResult;
import io.github.distributedlock.test.RedisProcess;
import org.openjdk.jmh.runner.RunnerException;

/**
 * Runs every scenario against one fresh redis-server and writes the report:
 * {@code BenchmarkMain [--smoke] [--no-jmh] [--out DIR] [--only 1,2] [--contended ours,2x8] [--reverse]}.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	/**
	 * Run the benchmark from the command line.
	 * @param args {@code --smoke} for about a second per scenario, {@code --no-jmh} to
	 * skip JMH, {@code --out DIR} for the report directory ({@code docs/benchmarks}, or
	 * {@code target/smoke} for a smoke run), {@code --only 1,2} to run only some
	 * scenarios, {@code --contended ours-strict,2x8} to run only some of scenario 2's
	 * libraries and shapes, {@code --reverse} to run scenario 2's libraries in reverse
	 * order
	 */
	public static void main(String[] args) {
		boolean smoke = List.of(args).contains("--smoke");
		boolean jmh = !List.of(args).contains("--no-jmh");
		int out = List.of(args).indexOf("--out");
		Path directory = (out >= 0 && out + 1 < args.length) ? Path.of(args[out + 1])
				: Path.of(smoke ? "target/smoke" : "docs/benchmarks");
		BenchmarkSettings settings = smoke ? BenchmarkSettings.smoke(directory)
				: BenchmarkSettings.full(directory, jmh);
		int only = List.of(args).indexOf("--only");
		if (only >= 0 && only + 1 < args.length) {
			settings = settings
				.only(Arrays.stream(args[only + 1].split(",")).map(Integer::valueOf).collect(Collectors.toSet()));
		}
		int contended = List.of(args).indexOf("--contended");
		if (contended >= 0 && contended + 1 < args.length) {
			settings = settings.contended(Set.of(args[contended + 1].split(",")));
		}
		if (List.of(args).contains("--reverse")) {
			settings = settings.reverse();
		}
		BenchmarkResults results = run(settings);
		System.out.println();
		for (Verdict verdict : Targets.evaluate(results)) {
			System.out.printf("%-4s %s: %s%n", verdict.word(), verdict.target(), verdict.measured());
		}
		results.failures().forEach((failure) -> System.out.println("FAILED " + failure));
		// Library threads (Redisson's, Lettuce's) must not keep the JVM alive.
		System.exit(0);
	}

	/**
	 * Run every scenario and write the report.
	 * @param settings how long and how big
	 * @return the results
	 */
	public static BenchmarkResults run(BenchmarkSettings settings) {
		String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
		String loadBefore = SystemFacts.loadAverage();
		Path work = temporaryDirectory();
		BenchmarkResults results;
		try (RedisProcess redis = RedisProcess.launch(); BenchmarkRun run = new BenchmarkRun(settings, redis, work)) {
			Environment environment = new Environment(date, settings.describe(), SystemFacts.engineRevision(),
					SystemFacts.javaVersion(), "", redisVersion(redis), Runtime.getRuntime().availableProcessors(),
					SystemFacts.cpuModel(), loadBefore, "");
			List<String> failures = new ArrayList<>();
			List<UncontendedResult> uncontended = scenario(settings, 1, "uncontended", failures,
					() -> UncontendedScenario.run(run));
			List<ContendedResult> contended = scenario(settings, 2, "contended hand-off", failures,
					() -> ContendedScenario.run(run));
			List<ManyKeysResult> manyKeys = scenario(settings, 3, "many keys, many threads", failures,
					() -> ManyKeysScenario.run(run));
			List<CrashResult> crash = scenario(settings, 4, "crash recovery", failures, () -> CrashScenario.run(run));
			List<WaitersResult> waiters = scenario(settings, 5, "many waiters", failures,
					() -> WaitersScenario.run(run));
			List<ClusterResult> cluster = scenario(settings, 6, "many keys on Redis Cluster, 1 and 3 masters", failures,
					() -> ClusterScenario.run(run));
			String waiterJdk = waiters.isEmpty() ? "—" : waiters.get(0).jdk()
					+ (waiters.get(0).virtualThreads() ? ", virtual threads" : ", platform threads");
			results = new BenchmarkResults(environment.completed(waiterJdk, SystemFacts.loadAverage()), uncontended,
					contended, manyKeys, crash, waiters, cluster, failures, null);
		}
		finally {
			SystemFacts.deleteRecursively(work);
		}
		results = withJmh(results, settings);
		for (Path file : ReportWriter.write(settings.outputDirectory(), results)) {
			System.out.println("Wrote " + file.toAbsolutePath().normalize());
		}
		return results;
	}

	/**
	 * Run a scenario; one that fails is reported as failed rather than losing what the
	 * others measured.
	 */
	private static <T> List<T> scenario(BenchmarkSettings settings, int number, String title, List<String> failures,
			Supplier<List<T>> scenario) {
		if (!settings.runs(number)) {
			return List.of();
		}
		Progress.section(number + ". " + title);
		try {
			return scenario.get();
		}
		catch (RuntimeException ex) {
			ex.printStackTrace();
			String message = (ex.getMessage() != null) ? ex.getMessage() : ex.toString();
			failures.add(number + ". " + title + ": " + message.lines().findFirst().orElse(""));
			return List.of();
		}
	}

	private static BenchmarkResults withJmh(BenchmarkResults results, BenchmarkSettings settings) {
		if (!settings.jmh()) {
			return results;
		}
		Progress.section("JMH microbenchmarks");
		String table;
		try {
			table = JmhSuite.run(settings.smoke());
		}
		catch (RunnerException ex) {
			throw new IllegalStateException("JMH failed", ex);
		}
		return results.withJmh(table);
	}

	private static String redisVersion(RedisProcess redis) {
		String info = String.valueOf(redis.command("INFO", "server"));
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("redis_version:")) {
				return line.substring("redis_version:".length()).trim();
			}
		}
		return "unknown";
	}

	private static Path temporaryDirectory() {
		try {
			return Files.createTempDirectory("lock-benchmarks");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a work directory", ex);
		}
	}

}
