package io.github.distributedlock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks when a warm-up counts the workers' code as compiled.
 */
class WarmupTests {

	@Test
	void shouldWarmUpOnWhileTheJitUsesMoreThanItsShareOfACore() {
		Duration step = Duration.ofSeconds(5);

		assertThat(BenchmarkRun.compiling(phaseWithJit(250_000_001L), step)).isTrue();
		assertThat(BenchmarkRun.compiling(phaseWithJit(250_000_000L), step)).isFalse();
		assertThat(BenchmarkRun.compiling(phaseWithJit(0), step)).isFalse();
	}

	@Test
	void shouldCountTheShareOverTheWholePhase() {
		// 400 ms of compilation is quiet over 10 s, busy over 5 s.
		assertThat(BenchmarkRun.compiling(phaseWithJit(400_000_000L), Duration.ofSeconds(10))).isFalse();
		assertThat(BenchmarkRun.compiling(phaseWithJit(400_000_000L), Duration.ofSeconds(5))).isTrue();
	}

	@Test
	void shouldDescribeTheWarmUpOfAFullRun() {
		assertThat(BenchmarkSettings.full(Path.of("target/unused"), false).describe()).startsWith(
				"full (warm-up at least 10000 ms, then on while the JIT compilers use over 5% of a core, to 60 s, measured 5000 ms");
		assertThat(BenchmarkSettings.smoke(Path.of("target/unused")).describe())
			.startsWith("smoke (warm-up 100 ms, measured 400 ms");
	}

	private static PhaseResult phaseWithJit(long jitNanos) {
		return new PhaseResult(0, 1, List.of(), 1_000, 0, 0, 1_000_000, jitNanos);
	}

}
