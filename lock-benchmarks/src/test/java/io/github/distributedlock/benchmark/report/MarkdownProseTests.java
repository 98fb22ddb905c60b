package io.github.distributedlock.benchmark.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that the report's prose is wrapped without losing a word or splitting a code
 * span, that what is not prose is left alone, and that the report in {@code docs/} is
 * shaped as the writer shapes it.
 */
class MarkdownProseTests {

	private static final String LONG = "- **Setup.** One fresh `redis-server` (launched by `RedisProcess`, loopback, "
			+ "no persistence) serves every library. Four long-lived worker JVMs (`-Xmx768m -XX:+UseSerialGC`) "
			+ "each host one client of every library, created before any measured phase; scenarios run the "
			+ "libraries one after another, interleaved per scenario.";

	@Test
	void shouldWrapAListItemKeepingEveryWordAndItsIndentation() {
		String wrapped = MarkdownProse.wrap(LONG);

		assertThat(wrapped.lines()).hasSizeGreaterThan(2)
			.allSatisfy((line) -> assertThat(line).hasSizeLessThanOrEqualTo(100));
		assertThat(wrapped.lines().skip(1))
			.allSatisfy((line) -> assertThat(line).startsWith("  ").doesNotStartWith("   "));
		assertThat(words(wrapped)).isEqualTo(words(LONG));
	}

	@Test
	void shouldNeverSplitACodeSpan() {
		String wrapped = MarkdownProse.wrap(LONG);

		assertThat(wrapped.lines())
			.allSatisfy((line) -> assertThat(line.chars().filter((c) -> c == '`').count()).as("backticks on '%s'", line)
				.isEven());
		assertThat(wrapped).contains("`-Xmx768m -XX:+UseSerialGC`");
	}

	@Test
	void shouldContinueAQuoteAsAQuote() {
		String quote = "> **Caveat:** " + "the figures are noisy; ".repeat(10);

		assertThat(MarkdownProse.wrap(quote).lines()).hasSizeGreaterThan(1)
			.allSatisfy((line) -> assertThat(line).startsWith("> "));
	}

	@Test
	void shouldLeaveTablesHeadingsAndCodeAlone() {
		String table = "| a | " + "b".repeat(150) + " |";
		String heading = "## " + "heading ".repeat(20);
		String code = "```\n" + "code ".repeat(40) + "\n```";
		String markdown = String.join("\n", table, heading, code, "");

		assertThat(MarkdownProse.wrap(markdown)).isEqualTo(markdown);
	}

	@Test
	void shouldGiveTheSameTextWhenWrappedAgain() {
		String once = MarkdownProse.wrap(LONG + "\n\n" + "word ".repeat(30) + "`" + "x".repeat(120) + "` end\n");

		assertThat(MarkdownProse.wrap(once)).isEqualTo(once);
	}

	@Test
	void shouldFindTheCommittedReportShapedAsTheWriterShapesIt() throws IOException {
		String report = Files.readString(Path.of("..", "docs", "benchmarks", ReportWriter.REPORT));

		assertThat(MarkdownProse.wrap(report)).isEqualTo(report);
	}

	private static String[] words(String text) {
		return Arrays.stream(text.split("\\s+")).filter((word) -> !word.isEmpty()).toArray(String[]::new);
	}

}
