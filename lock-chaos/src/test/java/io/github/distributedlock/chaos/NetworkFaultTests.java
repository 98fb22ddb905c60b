package io.github.distributedlock.chaos;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of the network between one worker and Redis, injected at that worker's proxy:
 * added latency, dropped connections, and a partition that outlasts the lease.
 */
class NetworkFaultTests {

	private static final String LATENCY = "proxy +50 ms latency, 2 s";

	private static final String DROP = "proxy drops all connections";

	private static final String PARTITION = "proxy partition of one client, 3 s";

	@Test
	void shouldStaySafeAndRecoverThroughNetworkFaultsOfOneClient() throws Exception {
		try (ChaosRun run = ChaosRun.standalone("network faults")) {
			WorkerConfig config = run.defaults();
			run.startWorkers(3, config);
			run.run(Duration.ofMillis(700));
			ChaosProxy proxy = run.proxy("w1");

			long start = System.nanoTime();
			proxy.latency(Duration.ofMillis(50));
			run.run(Duration.ofSeconds(2));
			proxy.latency(Duration.ZERO);
			run.fault(Fault.onWorker(LATENCY, start, System.nanoTime(), "w1"));
			run.run(Duration.ofMillis(500));

			for (int i = 0; i < 2; i++) {
				start = System.nanoTime();
				int dropped = proxy.dropConnections();
				run.fault(Fault.onWorker(DROP, start, System.nanoTime(), "w1"));
				assertThat(dropped).as("connections dropped").isPositive();
				run.run(Duration.ofMillis(700));
			}

			// Cut while w1 holds a lock, so that its lease runs out behind the partition.
			run.awaitAcquisition((event) -> event.worker().equals("w1"), Duration.ofSeconds(15));
			start = System.nanoTime();
			proxy.cut();
			run.run(Duration.ofSeconds(3));
			long healing = System.nanoTime();
			proxy.heal();
			run.fault(Fault.onWorker(PARTITION, start, healing, "w1"));
			run.run(Duration.ofMillis(1500));

			CheckReport report = run.finish();
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			long startedAt = start;
			assertThat(run.history().holds()).as("the other workers kept taking locks during the partition")
				.anyMatch((hold) -> !hold.worker().equals("w1") && hold.okNanos() > startedAt + leaseNanos(config)
						&& hold.okNanos() < healing);
			assertThat(run.history()
				.count((event) -> event.worker().equals("w1") && !event.type().equals(Event.OK)
						&& !event.type().equals(Event.INVOKE) && event.nanos() > startedAt
						&& event.nanos() < healing + leaseNanos(config)))
				.as("operations of the partitioned worker that failed clearly instead of hanging")
				.isPositive();
			assertThat(report.recoveries().get(PARTITION)).hasSize(1);
			assertThat(report.recoveries().get(DROP)).hasSize(2);
		}
	}

	private static long leaseNanos(WorkerConfig config) {
		return Duration.ofMillis(config.leaseMillis()).toNanos();
	}

}
