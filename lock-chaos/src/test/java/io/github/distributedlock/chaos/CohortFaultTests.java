package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of workers whose threads pass a lock in memory (docs/design/cohorting.md): a
 * worker killed with -9 while one of its threads holds the lock, its cohort and its local
 * waiters dying with it. Frozen cohorts are in {@link BoundaryFaultTests}.
 */
class CohortFaultTests {

	private static final String KILL = "kill -9 cohort holder";

	private static final int COHORT_HOLDERS = 16;

	@Test
	void shouldHandTheLockOfAKilledCohortToAnotherWorkerWithinItsLease() throws Exception {
		try (ChaosRun run = ChaosRun.standalone(KILL)) {
			// Four threads of each worker on one key, so that cohorts form; critical
			// sections long enough that the kill lands inside one.
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of("k0"), 4, 1000, 10_000, 10, 40,
					1000, 0, 1)
				.withCohorts(COHORT_HOLDERS, 200);
			run.startWorkers(3, config);
			run.run(Duration.ofMillis(500));
			int holderKills = 0;
			for (int attempt = 0; attempt < 6 && holderKills < 2; attempt++) {
				WorkerProcess victim = run.workers().stream().filter(WorkerProcess::isAlive).findFirst().orElseThrow();
				Event held = run.awaitAcquisition((event) -> event.worker().equals(victim.name()),
						Duration.ofSeconds(15));
				long killed = victim.kill9();
				run.history().died(victim.name(), killed);
				Hold hold = run.hold(held.holdId());
				if (hold.release() == null && hold.endNanos() == killed) {
					run.fault(Fault.onHold(KILL, killed, killed, held.holdId()));
					holderKills++;
				}
				run.startWorkers(1, config);
				run.run(Duration.ofMillis(config.leaseMillis() + 1000));
			}
			CheckReport report = run.finish();
			long passes = BoundaryFaultTests.passes(run.history(), COHORT_HOLDERS);
			ChaosSummary.note("Cohorts", "- " + KILL + ": " + passes + " of " + report.acquisitions()
					+ " holds were passed in memory; " + holderKills + " holders killed in their critical section.");
			assertThat(holderKills).as("holders killed inside their critical section").isEqualTo(2);
			assertThat(passes).as("holds passed in memory").isPositive();
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.recoveries().get(KILL)).hasSize(2);
		}
	}

}
