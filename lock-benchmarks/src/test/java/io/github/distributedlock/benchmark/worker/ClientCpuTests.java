package io.github.distributedlock.benchmark.worker;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the arithmetic of {@link ClientCpu} on a made-up process clock: the CPU time
 * since the start, without the holds.
 */
class ClientCpuTests {

	@Test
	void shouldCountFromTheStartWithoutTheHolds() {
		AtomicLong process = new AtomicLong(5_000_000);
		ClientCpu cpu = new ClientCpu(process::get);
		process.addAndGet(1_000_000);
		cpu.hold(300_000);
		cpu.hold(200_000);

		assertThat(cpu.netNanos()).isEqualTo(500_000);
	}

	@Test
	void shouldReadTheProcessClockOfThisJvm() {
		ClientCpu cpu = ClientCpu.start();
		long spent = ClientCpu.threadNanos();
		while (ClientCpu.threadNanos() - spent < 20_000_000) {
			Thread.onSpinWait();
		}

		assertThat(cpu.netNanos()).isGreaterThanOrEqualTo(20_000_000);
	}

}
