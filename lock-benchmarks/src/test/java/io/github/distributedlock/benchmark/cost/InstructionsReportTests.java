package io.github.distributedlock.benchmark.cost;

import java.util.List;

import io.github.distributedlock.benchmark.Library;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Checks the arithmetic of {@link InstructionsReport} on made-up totals, without
 * valgrind: the per-pair figure is the difference of the two runs over the difference of
 * their pairs, and the ratios divide by the floor's and Spring Integration's figures.
 */
class InstructionsReportTests {

	@Test
	void shouldParseTheTotalsTheScriptPasses() {
		assertThat(InstructionsReport.Totals.parse("spring=123,456"))
			.isEqualTo(new InstructionsReport.Totals(Library.SPRING_INTEGRATION, 123, 456));
		assertThatIllegalArgumentException().isThrownBy(() -> InstructionsReport.Totals.parse("spring=123"));
	}

	@Test
	void shouldCancelStartupAndWarmUpByTakingTheDifference() {
		// 5,000,000 of startup and warm-up in both runs; 100 and 400 per pair.
		List<InstructionsReport.Totals> totals = List.of(
				new InstructionsReport.Totals(Library.FLOOR, 5_000_000 + 500 * 100, 5_000_000 + 2500 * 100),
				new InstructionsReport.Totals(Library.THIS_PROJECT, 5_000_000 + 500 * 300, 5_000_000 + 2500 * 300),
				new InstructionsReport.Totals(Library.SPRING_INTEGRATION, 5_000_000 + 500 * 400,
						5_000_000 + 2500 * 400));

		String markdown = InstructionsReport.markdown(500, 2500, 200, totals);

		assertThat(markdown).contains("| " + Library.FLOOR.title() + " | 100 | 1.00× | 0.25× |")
			.contains("| " + Library.THIS_PROJECT.title() + " | 300 | 3.00× | 0.75× |")
			.contains("| " + Library.SPRING_INTEGRATION.title() + " | 400 | 4.00× | 1.00× |")
			.contains("(Ir(2500) − Ir(500)) / 2000");
	}

	@Test
	void shouldLeaveARatioBlankWithoutItsReference() {
		String markdown = InstructionsReport.markdown(10, 20, 0,
				List.of(new InstructionsReport.Totals(Library.REDISSON, 1_000, 3_000)));

		assertThat(markdown).contains("| " + Library.REDISSON.title() + " | 200 | – | – |");
	}

}
