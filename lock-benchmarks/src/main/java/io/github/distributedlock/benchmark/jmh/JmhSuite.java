package io.github.distributedlock.benchmark.jmh;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the microbenchmarks of this package: briefly in one forked JVM for the report, or
 * in-process for a smoke run, where the point is only that they still work.
 */
public final class JmhSuite {

	private JmhSuite() {
	}

	/**
	 * Run every benchmark of this package.
	 * @param smoke whether to run each for a moment, in this JVM
	 * @return a Markdown table of the scores
	 * @throws RunnerException if a benchmark fails
	 */
	public static String run(boolean smoke) throws RunnerException {
		Options options = new OptionsBuilder().include(JmhSuite.class.getPackageName() + "\\..*Benchmark")
			.forks(smoke ? 0 : 1)
			.warmupIterations(smoke ? 1 : 3)
			.warmupTime(TimeValue.milliseconds(smoke ? 50 : 1000))
			.measurementIterations(smoke ? 1 : 3)
			.measurementTime(TimeValue.milliseconds(smoke ? 50 : 1000))
			.verbosity(smoke ? VerboseMode.SILENT : VerboseMode.NORMAL)
			.shouldFailOnError(true)
			.build();
		return table(new Runner(options).run());
	}

	private static String table(Collection<RunResult> results) {
		List<RunResult> sorted = new ArrayList<>(results);
		sorted.sort(Comparator.comparing((RunResult r) -> r.getParams().getBenchmark()));
		StringBuilder table = new StringBuilder(
				"| benchmark | score | error (99.9 %) | unit |\n| --- | --- | --- | --- |\n");
		for (RunResult result : sorted) {
			Result<?> primary = result.getPrimaryResult();
			String name = result.getParams().getBenchmark().substring(JmhSuite.class.getPackageName().length() + 1);
			table.append(String.format(Locale.ROOT, "| %s | %.1f | %s | %s |%n", name, primary.getScore(),
					Double.isFinite(primary.getScoreError())
							? String.format(Locale.ROOT, "± %.1f", primary.getScoreError()) : "—",
					primary.getScoreUnit()));
		}
		return table.toString();
	}

}
