package io.github.distributedlock.benchmark.cost;

import java.util.List;

import io.github.distributedlock.benchmark.Library;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Checks the arithmetic of {@link InstructionsReport} on made-up totals, without
 * valgrind: the per-pair figure is the difference of the two runs over the difference of
 * their pairs, and the ratios divide by the floor's, Spring Integration's and the fenced
 * floor's figures.
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
	void shouldDivideByTheFencedFloorToo() {
		List<InstructionsReport.Totals> totals = List.of(new InstructionsReport.Totals(Library.FLOOR, 0, 100 * 2000),
				new InstructionsReport.Totals(Library.FENCED_FLOOR, 0, 500 * 2000),
				new InstructionsReport.Totals(Library.ENGINE_FLOOR, 0, 600 * 2000),
				new InstructionsReport.Totals(Library.THIS_PROJECT, 0, 1_500 * 2000),
				new InstructionsReport.Totals(Library.SPRING_INTEGRATION, 0, 600 * 2000));

		String markdown = InstructionsReport.markdown(500, 2500, 200, totals);

		assertThat(markdown).contains("| ratio to RedisLockRegistry | ratio to the fenced floor |")
			.contains("| " + Library.FLOOR.title() + " | 100 | 1.00× | 0.17× | 0.20× |")
			.contains("| " + Library.FENCED_FLOOR.title() + " | 500 | 5.00× | 0.83× | 1.00× |")
			.contains("| " + Library.THIS_PROJECT.title() + " | 1,500 | 15.00× | 2.50× | 3.00× |")
			.contains("| " + Library.ENGINE_FLOOR.title() + " | 600 | 6.00× | 1.00× | 1.20× |")
			.contains("The fenced floor is the cheapest lock")
			.contains("The engine floor runs the fenced floor's commands");
	}

	@Test
	void shouldLeaveARatioBlankWithoutItsReference() {
		String markdown = InstructionsReport.markdown(10, 20, 0,
				List.of(new InstructionsReport.Totals(Library.REDISSON, 1_000, 3_000)));

		assertThat(markdown).contains("| " + Library.REDISSON.title() + " | 200 | – | – | – |")
			.doesNotContain("The fenced floor")
			.doesNotContain("The engine floor");
	}

	@Test
	void shouldParseTheFunctionsTheScriptPasses() {
		assertThat(InstructionsReport.Part.isPart("ours:lua_pcall=1,2")).isTrue();
		assertThat(InstructionsReport.Part.isPart("ours=1,2")).isFalse();
		assertThat(InstructionsReport.Part.parse("ours:lua_pcall=1,2"))
			.isEqualTo(new InstructionsReport.Part(Library.THIS_PROJECT, "lua_pcall", 1, 2));
		assertThatIllegalArgumentException().isThrownBy(() -> InstructionsReport.Part.parse("ours:main=1,2"));
		assertThatIllegalArgumentException().isThrownBy(() -> InstructionsReport.Part.parse("ours:call=1"));
	}

	@Test
	void shouldSplitAPairByTheFunctionsThatRanIt() {
		// Per pair: 1,000 in all; 900 under call, 700 of it a script, 400 its Lua code,
		// 150 of that the commands it runs. The floor runs no script: 100 in all, 60
		// under call.
		List<InstructionsReport.Totals> totals = List.of(new InstructionsReport.Totals(Library.FLOOR, 0, 100 * 2000),
				new InstructionsReport.Totals(Library.THIS_PROJECT, 0, 1_000 * 2000));
		List<InstructionsReport.Part> parts = List.of(new InstructionsReport.Part(Library.FLOOR, "call", 0, 60 * 2000),
				new InstructionsReport.Part(Library.FLOOR, "evalGenericCommand", 0, 0),
				new InstructionsReport.Part(Library.THIS_PROJECT, "call", 7, 7 + 900 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "evalGenericCommand", 0, 700 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "lua_pcall", 0, 400 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "scriptCall", 0, 150 * 2000));

		String markdown = InstructionsReport.markdown(500, 2500, 200, totals, parts, InstructionsReport.Workload.PAIRS);

		assertThat(markdown)
			.contains("| per acquire+release | " + Library.FLOOR.title() + " | " + Library.THIS_PROJECT.title() + " |")
			.contains("| reading, parsing and dispatching requests, and replying | 40 | 100 |")
			.contains("| commands sent on their own | 60 | 200 |")
			.contains("| a script's set-up: its `KEYS` and `ARGV`, its reply, Lua's garbage collector | 0 | 300 |")
			.contains("| the scripts' Lua code (`redis.sha1hex` included) | 0 | 250 |")
			.contains("| the commands the scripts run (`redis.call`) | 0 | 150 |");
	}

	@Test
	void shouldCountAFunctionCallAsAScript() {
		// As above, but run with FCALL: 700 per pair under fcallCommand, a few EVALs
		// besides (10 per pair).
		List<InstructionsReport.Totals> totals = List
			.of(new InstructionsReport.Totals(Library.THIS_PROJECT, 0, 1_000 * 2000));
		List<InstructionsReport.Part> parts = List.of(
				new InstructionsReport.Part(Library.THIS_PROJECT, "call", 0, 900 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "evalGenericCommand", 0, 10 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "fcallCommand", 0, 690 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "lua_pcall", 0, 400 * 2000),
				new InstructionsReport.Part(Library.THIS_PROJECT, "scriptCall", 0, 150 * 2000));

		String markdown = InstructionsReport.markdown(500, 2500, 200, totals, parts, InstructionsReport.Workload.PAIRS);

		assertThat(markdown).contains("| commands sent on their own | 200 |")
			.contains("| a script's set-up: its `KEYS` and `ARGV`, its reply, Lua's garbage collector | 300 |");
	}

	@Test
	void shouldLeaveOutTheSplitWithoutFunctions() {
		String markdown = InstructionsReport.markdown(10, 20, 0,
				List.of(new InstructionsReport.Totals(Library.REDISSON, 1_000, 3_000)), List.of(),
				InstructionsReport.Workload.PAIRS);

		assertThat(markdown).doesNotContain("Where they go");
	}

	@Test
	void shouldSayWhatEachWorkloadDid() {
		List<InstructionsReport.Totals> totals = List.of(new InstructionsReport.Totals(Library.REDISSON, 1_000, 3_000));
		assertThat(InstructionsReport.markdown(10, 20, 0, totals, List.of(), InstructionsReport.Workload.PAIRS))
			.contains("a new lock name each time");
		assertThat(InstructionsReport.markdown(10, 20, 0, totals, List.of(), InstructionsReport.Workload.CONTENDED))
			.contains("two clients of the library with connections of their own");
		assertThat(
				InstructionsReport.markdown(10, 20, 0, totals, List.of(), InstructionsReport.Workload.CONTENDED_LOCAL))
			.contains("two threads sharing one client of the library");
	}

}
