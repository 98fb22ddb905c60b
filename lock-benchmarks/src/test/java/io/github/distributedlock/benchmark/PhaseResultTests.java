package io.github.distributedlock.benchmark;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks how {@link PhaseResult} divides the workers' CPU time among acquisitions.
 */
class PhaseResultTests {

	@Test
	void shouldDivideClientCpuByReportedAcquisitions() {
		PhaseResult phase = new PhaseResult(0, 1, List.of(), 4_000, 0, 0, 120_000_000, 8_000_000);

		assertThat(phase.clientCpuMicros()).isEqualTo(30.0);
		assertThat(phase.jitCpuMicros()).isEqualTo(2.0);
	}

	@Test
	void shouldNotDivideByZeroWhenNothingWasAcquired() {
		PhaseResult phase = new PhaseResult(0, 1, List.of(), 0, 3, 0, 2_000, 0);

		assertThat(phase.clientCpuMicros()).isEqualTo(2.0);
	}

}
