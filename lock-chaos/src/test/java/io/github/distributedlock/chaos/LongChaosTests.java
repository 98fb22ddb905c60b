package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The long profile: one run of at least 100,000 acquisitions with every standalone fault
 * injected in turn, over and over. Run it with
 * {@code mvn -B -pl lock-chaos verify -Pchaos-long}.
 * <p>
 * Redis persists every write (AOF, fsync always), so no fault loses data and every
 * overlap must be explained by an expired lease.
 */
@Tag("long")
class LongChaosTests {

	private static final long TARGET = Long.getLong("chaos.acquisitions", 100_000);

	private static final Duration GAP = Duration.ofSeconds(2);

	@Test
	void shouldStaySafeAndLiveThroughAScheduledMixOfFaults() throws Exception {
		try (ChaosRun run = ChaosRun.standalone("long mix", "--appendonly", "yes", "--appendfsync", "always",
				"--enable-debug-command", "yes")) {
			List<String> keys = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7");
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), keys, 3, 1000, 5000, 0, 5, 1000, 0, 1);
			// Victims of kill -9 and SIGSTOP hold longer, so that the signal lands inside
			// a critical section.
			WorkerConfig victims = new WorkerConfig("w", "", run.store().port(), keys, 2, 1000, 5000, 20, 60, 1000, 0,
					7);
			run.startWorkers(4, config);
			run.startWorkers(1, victims);
			Nemesis nemesis = new Nemesis(run, config, victims);
			long start = System.nanoTime();
			for (int round = 0; acquisitions(run) < TARGET; round++) {
				nemesis.inject(round);
				run.run(GAP);
				System.out.println("long mix: " + acquisitions(run) + " acquisitions after "
						+ TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + " s");
			}
			CheckReport report = run.finish();
			assertThat(report.acquisitions()).isGreaterThanOrEqualTo(TARGET);
			assertSafe(report);
			assertThat(report.overlapsByDataLoss()).isZero();
			assertThat(report.livenessViolations()).isEmpty();
		}
	}

	private static long acquisitions(ChaosRun run) {
		return run.history().count((event) -> event.is(Event.OK, Event.ACQUIRE));
	}

	/**
	 * Injects one fault per round, cycling through every kind.
	 */
	private static final class Nemesis {

		private final ChaosRun run;

		private final WorkerConfig config;

		private final WorkerConfig victims;

		private String victim;

		Nemesis(ChaosRun run, WorkerConfig config, WorkerConfig victims) {
			this.run = run;
			this.config = config;
			this.victims = victims;
			this.victim = run.workers().get(run.workers().size() - 1).name();
		}

		void inject(int round) throws Exception {
			switch (round % 10) {
				case 0 -> killHolder();
				case 1 -> freezeHolder();
				case 2 -> restartRedis(false);
				case 3 -> clientKill("normal");
				case 4 -> clientKill("pubsub");
				case 5 -> stall(true);
				case 6 -> stall(false);
				case 7 -> proxy(round);
				case 8 -> partition();
				default -> restartRedis(true);
			}
		}

		private WorkerProcess someWorker(int index) {
			List<WorkerProcess> alive = this.run.workers().stream().filter(WorkerProcess::isAlive).toList();
			return alive.get(index % alive.size());
		}

		private void killHolder() throws Exception {
			WorkerProcess victim = this.run.worker(this.victim);
			Event held = this.run.awaitAcquisition((event) -> event.worker().equals(victim.name()),
					Duration.ofSeconds(30));
			long killed = victim.kill9();
			this.run.history().died(victim.name(), killed);
			Hold hold = this.run.hold(held.holdId());
			if (hold.release() == null && hold.endNanos() == killed) {
				this.run.fault(Fault.onHold("kill -9 holder", killed, killed, held.holdId()));
			}
			else {
				this.run.fault(Fault.of("kill -9 worker between holds", killed, killed));
			}
			this.run.startWorkers(1, this.victims);
			List<WorkerProcess> all = this.run.workers();
			this.victim = all.get(all.size() - 1).name();
		}

		private void freezeHolder() throws Exception {
			WorkerProcess victim = this.run.worker(this.victim);
			Event held = this.run.awaitAcquisition((event) -> event.worker().equals(victim.name()),
					Duration.ofSeconds(30));
			long paused = System.nanoTime();
			victim.pause();
			Thread.sleep(this.config.leaseMillis() + 500);
			long thawed = System.nanoTime();
			victim.resume();
			Thread.sleep(200);
			Hold hold = this.run.hold(held.holdId());
			if (hold.okNanos() < paused && hold.endNanos() > thawed) {
				this.run.fault(Fault.onHold("SIGSTOP holder past lease", paused, thawed, held.holdId()));
			}
			else {
				this.run.fault(Fault.onWorker("SIGSTOP worker between holds", paused, thawed, victim.name()));
			}
		}

		private void restartRedis(boolean crash) {
			long start = System.nanoTime();
			if (crash) {
				this.run.redis().kill();
				this.run.redis().start();
			}
			else {
				this.run.redis().restart();
			}
			this.run.fault(Fault.of(crash ? "redis kill -9 + start, AOF always" : "redis restart, AOF always", start,
					System.nanoTime()));
		}

		private void clientKill(String type) {
			long start = System.nanoTime();
			this.run.redis().command("CLIENT", "KILL", "TYPE", type);
			this.run.fault(Fault.of("CLIENT KILL TYPE " + type, start, System.nanoTime()));
		}

		private void stall(boolean pause) {
			long start = System.nanoTime();
			if (pause) {
				this.run.redis().command("CLIENT", "PAUSE", "1500", "ALL");
				this.run.fault(Fault.of("CLIENT PAUSE 1.5 s", start, start + TimeUnit.MILLISECONDS.toNanos(1500)));
			}
			else {
				this.run.redis().command("DEBUG", "SLEEP", "1.5");
				this.run.fault(Fault.of("DEBUG SLEEP 1.5 s", start, System.nanoTime()));
			}
		}

		private void proxy(int round) throws InterruptedException {
			WorkerProcess victim = someWorker(round);
			ChaosProxy proxy = this.run.proxy(victim.name());
			long start = System.nanoTime();
			if (round % 20 < 10) {
				proxy.latency(Duration.ofMillis(50));
				Thread.sleep(1500);
				proxy.latency(Duration.ZERO);
				this.run.fault(Fault.onWorker("proxy +50 ms latency, 1.5 s", start, System.nanoTime(), victim.name()));
			}
			else {
				proxy.dropConnections();
				this.run.fault(Fault.onWorker("proxy drops all connections", start, System.nanoTime(), victim.name()));
			}
		}

		private void partition() throws InterruptedException {
			WorkerProcess victim = someWorker(2);
			ChaosProxy proxy = this.run.proxy(victim.name());
			this.run.awaitAcquisition((event) -> event.worker().equals(victim.name()), Duration.ofSeconds(30));
			long start = System.nanoTime();
			proxy.cut();
			Thread.sleep(this.config.leaseMillis() * 2);
			long healing = System.nanoTime();
			proxy.heal();
			this.run.fault(Fault.onWorker("proxy partition of one client, 2 s", start, healing, victim.name()));
		}

	}

}
