package io.github.distributedlock.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that the summaries read as the hand-written pages do: table cells of at most 300
 * characters (the recovery times are a list below the table) and prose lines of at most
 * {@link ChaosSummary#WIDTH} characters, a note wrapped under its list item without
 * splitting a code span.
 */
class ChaosSummaryTests {

	@Test
	void shouldWrapANoteUnderItsListItemKeepingCodeSpansWhole() {
		String note = "- Minimal ACL for the default PUBSUB strategy and key prefix `lock` (each command shown "
				+ "necessary by removing it): `ACL SETUSER locker reset on ><password> ~lock:* &lock:* -@all +del "
				+ "+eval +evalsha +exists +get +hdel`";

		List<String> lines = ChaosSummary.wrap(note).lines().toList();

		assertThat(lines).hasSizeGreaterThan(1);
		assertThat(lines.subList(1, lines.size())).allSatisfy((line) -> assertThat(line).startsWith("  "));
		assertThat(String.join(" ", lines).replaceAll("\\s+", " ")).isEqualTo(note);
		assertThat(lines).allSatisfy((line) -> assertThat(line.chars().filter((c) -> c == '`').count()).isEven());
		assertThat(lines).anySatisfy((line) -> assertThat(line).contains("`ACL SETUSER locker reset on"));
	}

	@Test
	void shouldWrapARecoveryLineUnderItsNestedListItem() {
		String recovery = "  - CLIENT PAUSE ALL, cohorts, cohort time limit (lease/3) − 100 ms = 300 ms: "
				+ "100 / 100 / 100 ms (1/1)";

		List<String> lines = ChaosSummary.wrap(recovery).lines().toList();

		assertThat(lines).hasSize(2)
			.allSatisfy((line) -> assertThat(line).hasSizeLessThanOrEqualTo(ChaosSummary.WIDTH));
		assertThat(lines.get(0)).startsWith("  - CLIENT PAUSE ALL");
		assertThat(lines.get(1)).startsWith("    ").doesNotStartWith("     ");
		assertThat(String.join(" ", lines).replaceAll("\\s+", " ")).isEqualTo(recovery.replaceAll("\\s+", " "));
	}

	@Test
	void shouldFindTheCommittedSummariesShapedForAReader() throws IOException {
		List<String> problems = new ArrayList<>();
		for (String name : new String[] { "summary.md", "summary-long.md" }) {
			List<String> lines = Files.readAllLines(Path.of("..", "docs", "chaos", name));
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.startsWith("|")) {
					for (String cell : line.split(" \\| ")) {
						if (cell.length() > 300) {
							problems.add(name + ":" + (i + 1) + ": a cell of " + cell.length() + " characters");
						}
					}
				}
				else if (line.replaceAll("`[^`]*`", "`…`").length() > ChaosSummary.WIDTH) {
					problems.add(name + ":" + (i + 1) + ": a line of " + line.length() + " characters");
				}
			}
		}
		assertThat(problems).isEmpty();
	}

}
