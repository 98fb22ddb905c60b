package io.github.distributedlock.benchmark.report;

import java.util.List;

import io.github.distributedlock.benchmark.Library;
import org.junit.jupiter.api.Test;

import static io.github.distributedlock.benchmark.report.ContendedShape.FOUR_PROCESSES;
import static io.github.distributedlock.benchmark.report.ContendedShape.ONE_PROCESS_SIXTEEN_THREADS;
import static io.github.distributedlock.benchmark.report.ContendedShape.TWO_PROCESSES;
import static io.github.distributedlock.benchmark.report.ContendedShape.TWO_PROCESSES_EIGHT_THREADS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that scenario 2's tables each show their own shape's rows, the 8-thread table
 * and its target verdict included.
 */
class MarkdownReportTests {

	private static final String EIGHT_THREADS_HEADING = "## 2. Contended hand-off: 2 processes × 8 threads, one key, "
			+ "~100 µs holds";

	private final BenchmarkResults results = ContendedResults
		.run(List.of(ContendedResults.of(Library.FLOOR, TWO_PROCESSES, 1111, 0),
				ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES, 2222, 0),
				ContendedResults.of(Library.REDISSON, TWO_PROCESSES, 3333, 0),
				ContendedResults.of(Library.THIS_PROJECT, FOUR_PROCESSES, 4444, 0),
				ContendedResults.of(Library.FLOOR, TWO_PROCESSES_EIGHT_THREADS, 1500, 0),
				ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES_EIGHT_THREADS, 6000, 0),
				ContendedResults.of(Library.THIS_PROJECT_REACTIVE, TWO_PROCESSES_EIGHT_THREADS, 5000, 2),
				ContendedResults.of(Library.REDISSON, TWO_PROCESSES_EIGHT_THREADS, 2000, 0),
				ContendedResults.of(Library.SPRING_INTEGRATION, TWO_PROCESSES_EIGHT_THREADS, 3000, 0),
				ContendedResults.of(Library.THIS_PROJECT, ONE_PROCESS_SIXTEEN_THREADS, 7777, 0),
				ContendedResults.of(Library.REDISSON, ONE_PROCESS_SIXTEEN_THREADS, 8888, 0)));

	@Test
	void shouldRenderTheEightThreadTableWithItsRowsOnly() {
		String table = section(MarkdownReport.render(this.results, "chart.svg"), EIGHT_THREADS_HEADING);

		assertThat(table.lines()
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| library") && !line.startsWith("| ---")))
			.hasSize(5);
		assertThat(table).contains("| acquisitions/s | hand-off p50 | hand-off p99 |", "| round trips / acq. |",
				"| Redis CPU / acq. (main thread) |", "| client CPU / acq. (worker processes, without JIT) |",
				"| overlaps | timeouts / errors |");
		// Ratios are to this table's floor and best peer: Spring Integration's 3000/s,
		// Redisson's 20 µs.
		assertThat(table)
			.contains("| this project (PUBSUB, cohorts on) | 6000 (4.00× / 2.00×) | 60 µs (4.00× / 3.00×) |");
		assertThat(table).contains("| this project, reactive (PUBSUB) | 5000 (3.33× / 1.67×) |");
		assertThat(table).contains("| 2 | 7 / 0 |");
		assertThat(table).doesNotContain("2222", "3333", "4444");
	}

	@Test
	void shouldShowTheLocalShareAndTheLongestRemoteWaitBesideTheHandOff() {
		String table = section(MarkdownReport.render(this.results, "chart.svg"), EIGHT_THREADS_HEADING);

		assertThat(table)
			.contains("| hand-off max | next holder in same process | longest remote wait | " + "acquire wait p99 |");
		// The longest remote wait is a figure like the others, with its ratios to the
		// floor's 10500 µs and Redisson's 14000 µs.
		assertThat(table).contains("| 6000 µs (4.00× / 3.00×) | 75 % | 42000 µs (4.00× / 3.00×) |");
	}

	@Test
	void shouldRenderTheOneProcessTableWithoutRemoteFigures() {
		String table = section(MarkdownReport.render(this.results, "chart.svg"),
				"## 2. Contended hand-off: 1 process × 16 threads, one key, ~100 µs holds");

		assertThat(table).contains("Every hand-off goes between threads of the one process");
		assertThat(table)
			.contains("| this project (PUBSUB, cohorts on) | 7777 (— / 0.88×) |",
					"| Redisson RLock 4.7.0 | 8888 (— / 1.00×) |")
			.doesNotContain("6000");
		assertThat(table.lines().filter((line) -> line.contains("| n/a | n/a |"))).hasSize(2);
	}

	@Test
	void shouldKeepTheSingleThreadTablesApart() {
		String report = MarkdownReport.render(this.results, "chart.svg");
		String two = section(report, "## 2. Contended hand-off: 2 processes, one key, ~100 µs holds");

		assertThat(two).contains("| this project (PUBSUB, cohorts on) | 2222 (2.00× / 0.67×) |")
			.doesNotContain("6000", "4444");
		assertThat(section(report, "## 2. Contended hand-off: 4 processes, one key, ~100 µs holds")).contains("4444")
			.doesNotContain("2222", "6000");
	}

	@Test
	void shouldPrintTheEightThreadVerdict() {
		String report = MarkdownReport.render(this.results, "chart.svg");

		assertThat(section(report, "## Targets")).contains(
				"| contended throughput ≥ 2× the best peer's (2 processes × 8 threads) | 6000/s vs needed 6000/s | **PASS** |");
	}

	@Test
	void shouldLabelTheEightThreadCommandsAndChartRows() {
		assertThat(section(MarkdownReport.render(this.results, "chart.svg"), "## Commands seen"))
			.contains("| contended 2×8 | this project (PUBSUB, cohorts on) | evalsha 3.00 |");
		assertThat(HandoffChart.render(this.results.contended())).contains(">2 processes × 8 threads</text>");
	}

	/**
	 * Return the report from a heading to the next heading.
	 */
	private static String section(String report, String heading) {
		int start = report.indexOf(heading + "\n");
		assertThat(start).as(heading).isNotNegative();
		int end = report.indexOf("\n## ", start + heading.length());
		return report.substring(start, (end < 0) ? report.length() : end);
	}

}
