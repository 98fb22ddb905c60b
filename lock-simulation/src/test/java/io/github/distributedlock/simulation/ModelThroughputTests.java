package io.github.distributedlock.simulation;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures how many of the engine's calls the model runs per CPU-second, on the mix of
 * {@link LockWorkload} with time moving 200 µs per call, and shows that a seed gives the
 * same run twice. The rate is printed, not asserted (timing targets belong in the
 * benchmark module); the later simulation needs at least 10,000 lock operations per
 * CPU-second.
 */
class ModelThroughputTests {

	private static final int WARM_UP = 30_000;

	private static final int MEASURED = 50_000;

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	@Test
	void shouldRunTheWorkloadTheSameWayForASeed() {
		run(7, WARM_UP);
		long cpu = THREADS.getCurrentThreadCpuTime();
		Result first = run(11, MEASURED);
		long cpuNanos = THREADS.getCurrentThreadCpuTime() - cpu;
		System.out.printf(
				"Model: %,d calls (%,d grants) in %,d ms of CPU with the workload: %,d calls per"
						+ " CPU-second; %,d ms of CPU in the model's calls alone: %,d calls per CPU-second%n",
				first.calls(), first.grants(), cpuNanos / 1_000_000, first.calls() * 1_000_000_000L / cpuNanos,
				first.modelNanos() / 1_000_000, first.calls() * 1_000_000_000L / first.modelNanos());
		assertThat(first.grants()).as("calls that took a lock, a read lock or a permit").isGreaterThan(MEASURED / 20);
		assertThat(run(12, 10_000)).as("a second run of a seed").isEqualTo(run(12, 10_000));
	}

	private static Result run(long seed, int calls) {
		VirtualClock clock = new VirtualClock(1_795_000_000_000_000_000L);
		RedisModel model = new RedisModel(clock);
		model.pubSub().subscribe("waiters", LockWorkload.channels().toArray(new String[0]));
		LockWorkload workload = new LockWorkload(new SimulationRandom(seed));
		long digest = 17;
		int made = 0;
		int grants = 0;
		long modelNanos = 0;
		while (made < calls) {
			LockWorkload.Step step = workload.next();
			if (step.isPause()) {
				clock.advanceNanos(step.pauseMillis() * 1_000_000);
				continue;
			}
			long started = THREADS.getCurrentThreadCpuTime();
			Object reply = (step.script() != null) ? model.eval(step.script(), step.keys(), step.args())
					: model.command(step.keys().toArray(new String[0]));
			modelNanos += THREADS.getCurrentThreadCpuTime() - started;
			workload.replied(step, reply);
			if (reply instanceof List<?> items && !items.isEmpty() && Long.valueOf(1).equals(items.get(0))) {
				grants++;
			}
			digest = digest * 31 + Replies.describe(reply).hashCode();
			model.pubSub().drain().forEach((delivery) -> {
			});
			clock.advanceNanos(200_000);
			made++;
		}
		return new Result(made, grants, digest * 31 + model.keys().hashCode(), modelNanos);
	}

	/**
	 * What a run did; its time is left out of equality.
	 */
	private record Result(int calls, int grants, long digest, long modelNanos) {

		@Override
		public boolean equals(Object other) {
			return other instanceof Result result && result.calls() == this.calls && result.grants() == this.grants
					&& result.digest() == this.digest;
		}

		@Override
		public int hashCode() {
			return Long.hashCode(this.digest);
		}

	}

}
