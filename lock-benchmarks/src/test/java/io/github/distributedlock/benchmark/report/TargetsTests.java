package io.github.distributedlock.benchmark.report;

import java.util.List;

import io.github.distributedlock.benchmark.Library;
import org.junit.jupiter.api.Test;

import static io.github.distributedlock.benchmark.report.ContendedShape.TWO_PROCESSES;
import static io.github.distributedlock.benchmark.report.ContendedShape.TWO_PROCESSES_EIGHT_THREADS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the verdict on the target of 2 processes × 8 threads on one key: throughput at
 * least twice the best peer's.
 */
class TargetsTests {

	private static final String EIGHT_THREADS = "contended throughput ≥ 2× the best peer's (2 processes × 8 threads)";

	@Test
	void shouldPassWhenThroughputIsTwiceTheBestPeers() {
		List<Verdict> verdicts = Targets.evaluate(ContendedResults
			.run(List.of(ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES_EIGHT_THREADS, 6000, 0),
					ContendedResults.of(Library.REDISSON, TWO_PROCESSES_EIGHT_THREADS, 3000, 0),
					ContendedResults.of(Library.SPRING_INTEGRATION, TWO_PROCESSES_EIGHT_THREADS, 1000, 0))));

		assertThat(verdicts).filteredOn((verdict) -> verdict.target().equals(EIGHT_THREADS))
			.singleElement()
			.satisfies((verdict) -> {
				assertThat(verdict.pass()).isTrue();
				assertThat(verdict.measured()).isEqualTo("6000/s vs needed 6000/s");
			});
	}

	@Test
	void shouldMissWhenTheFasterPeerIsMoreThanHalfAsFast() {
		// Redisson alone would pass; Spring Integration is the best peer here.
		List<Verdict> verdicts = Targets.evaluate(ContendedResults
			.run(List.of(ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES_EIGHT_THREADS, 5000, 0),
					ContendedResults.of(Library.REDISSON, TWO_PROCESSES_EIGHT_THREADS, 1000, 0),
					ContendedResults.of(Library.SPRING_INTEGRATION, TWO_PROCESSES_EIGHT_THREADS, 2600, 0),
					ContendedResults.of(Library.FLOOR, TWO_PROCESSES_EIGHT_THREADS, 20000, 0))));

		assertThat(verdicts).filteredOn((verdict) -> verdict.target().equals(EIGHT_THREADS))
			.singleElement()
			.satisfies((verdict) -> {
				assertThat(verdict.pass()).isFalse();
				assertThat(verdict.word()).isEqualTo("MISS");
				assertThat(verdict.measured()).isEqualTo("5000/s vs needed 5200/s");
			});
	}

	@Test
	void shouldJudgeEachShapeOnItsOwnRows() {
		// With 2 single-thread processes Redisson is far ahead; the 8-thread target must
		// not see that row, nor the 2-process targets the 8-thread rows.
		List<Verdict> verdicts = Targets
			.evaluate(ContendedResults.run(List.of(ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES, 1000, 0),
					ContendedResults.of(Library.REDISSON, TWO_PROCESSES, 9000, 0),
					ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES_EIGHT_THREADS, 8000, 0),
					ContendedResults.of(Library.REDISSON, TWO_PROCESSES_EIGHT_THREADS, 100, 0))));

		assertThat(verdicts).filteredOn((verdict) -> verdict.target().equals(EIGHT_THREADS))
			.singleElement()
			.satisfies((verdict) -> assertThat(verdict.pass()).isTrue());
		assertThat(verdicts)
			.filteredOn((verdict) -> verdict.target().equals("contended throughput ≥ 2.5× Redisson's (2 processes)"))
			.singleElement()
			.satisfies((verdict) -> assertThat(verdict.measured()).isEqualTo("1000/s vs needed 22500/s"));
	}

	@Test
	void shouldNotJudgeEightThreadsWithoutAPeer() {
		List<Verdict> verdicts = Targets.evaluate(ContendedResults
			.run(List.of(ContendedResults.of(Library.THIS_PROJECT, TWO_PROCESSES_EIGHT_THREADS, 8000, 0),
					ContendedResults.of(Library.FLOOR, TWO_PROCESSES_EIGHT_THREADS, 100, 0))));

		assertThat(verdicts).extracting(Verdict::target).doesNotContain(EIGHT_THREADS);
	}

}
