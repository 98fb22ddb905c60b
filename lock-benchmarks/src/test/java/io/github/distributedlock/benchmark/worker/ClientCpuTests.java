package io.github.distributedlock.benchmark.worker;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the arithmetic of {@link ClientCpu} on made-up clocks: the CPU time since the
 * start, without the holds and without the JIT, which is counted apart.
 */
class ClientCpuTests {

	@Test
	void shouldCountFromTheStartWithoutTheHoldsAndTheJit() {
		AtomicLong process = new AtomicLong(5_000_000);
		AtomicLong compiler = new AtomicLong(700_000);
		ClientCpu cpu = new ClientCpu(process::get, compiler::get);
		process.addAndGet(1_000_000);
		compiler.addAndGet(100_000);
		cpu.hold(300_000);
		cpu.hold(200_000);

		assertThat(cpu.netNanos()).isEqualTo(400_000);
		assertThat(cpu.compilerNanos()).isEqualTo(100_000);
	}

	@Test
	void shouldReadTheProcessClockOfThisJvm() {
		ClientCpu cpu = ClientCpu.start();
		long spent = ClientCpu.threadNanos();
		while (ClientCpu.threadNanos() - spent < 20_000_000) {
			Thread.onSpinWait();
		}

		assertThat(cpu.netNanos() + cpu.compilerNanos()).isGreaterThanOrEqualTo(20_000_000);
	}

	@Test
	void shouldCountTheTicksOfCompilerThreadsOnly() {
		String compiler = "4242 (C2 CompilerThre) S 1 1 1 0 -1 4194368 10 0 0 0 120 30 0 0 20 0 1 0";
		String other = "4243 (bench loop (0)) R 1 1 1 0 -1 4194368 10 0 0 0 500 70 0 0 20 0 1 0";

		assertThat(ClientCpu.compilerTicks(compiler)).isEqualTo(150);
		assertThat(ClientCpu.compilerTicks(other)).isZero();
	}

}
