package io.github.distributedlock.benchmark.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes {@code results.md}, its prose wrapped as the hand-written pages are, and
 * {@code handoff.svg} into the output directory.
 */
public final class ReportWriter {

	/**
	 * The Markdown report's file name.
	 */
	public static final String REPORT = "results.md";

	/**
	 * The chart's file name.
	 */
	public static final String CHART = "handoff.svg";

	private ReportWriter() {
	}

	/**
	 * Write the report and the chart.
	 * @param directory the output directory, created if missing
	 * @param results the results
	 * @return the files written
	 */
	public static List<Path> write(Path directory, BenchmarkResults results) {
		try {
			Files.createDirectories(directory);
			Path report = Files.writeString(directory.resolve(REPORT),
					MarkdownProse.wrap(MarkdownReport.render(results, CHART)));
			Path chart = Files.writeString(directory.resolve(CHART), HandoffChart.render(results.contended()));
			return List.of(report, chart);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the report to " + directory, ex);
		}
	}

}
