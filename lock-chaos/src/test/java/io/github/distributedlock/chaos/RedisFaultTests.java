package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.FencedStore.StoreWrite;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults of the Redis server: restarts with and without persistence, connections killed
 * by the server, and stalls.
 */
class RedisFaultTests {

	private static final String RESTART = "redis restart, AOF always";

	private static final String CRASH = "redis kill -9 + start, no persistence";

	private static final String PAUSE = "CLIENT PAUSE 1.5 s";

	private static final String SLEEP = "DEBUG SLEEP 1.5 s";

	@Test
	void shouldKeepMutualExclusionThroughRestartsWithAppendOnlyPersistence() throws Exception {
		try (ChaosRun run = ChaosRun.standalone(RESTART, "--appendonly", "yes", "--appendfsync", "always")) {
			run.startWorkers(3, run.defaults());
			run.run(Duration.ofMillis(700));
			for (int i = 0; i < 2; i++) {
				long start = System.nanoTime();
				run.redis().restart();
				run.fault(Fault.of(RESTART, start, System.nanoTime()));
				run.run(Duration.ofMillis(1500));
			}
			CheckReport report = run.finish();
			assertSafe(report);
			assertThat(report.overlapsByDataLoss()).as("nothing is lost, nothing is excused").isZero();
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.recoveries().get(RESTART)).hasSize(2);
		}
	}

	@Test
	void shouldFenceOffAHolderWhoseLockWasLostWhenRedisCrashedWithoutPersistence() throws Exception {
		try (ChaosRun run = ChaosRun.standalone(CRASH)) {
			// Critical sections longer than a crash and restart, so that holders outlive
			// their locks.
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of("k0", "k1"), 2, 3000, 8000, 600,
					900, 1000, 0, 1);
			run.startWorkers(3, config);
			run.run(Duration.ofMillis(500));
			String fenced = null;
			for (int attempt = 0; attempt < 4 && fenced == null; attempt++) {
				Event held = run.awaitAcquisition((event) -> event.worker().equals("w1"), Duration.ofSeconds(20));
				long crash = System.nanoTime();
				run.redis().kill();
				run.redis().start();
				run.fault(Fault.losingData(CRASH, crash, System.nanoTime()));
				run.run(Duration.ofMillis(2500));
				List<StoreWrite> late = lateWrites(run, held.holdId(), crash);
				if (late.stream().anyMatch((write) -> !write.accepted())) {
					fenced = held.holdId();
				}
			}
			// Liveness is "acquired again within a lease": an acquire whose reply the
			// crash lost can be re-sent to the restarted server and hold the lock until
			// its lease ends, so keep the run going for a full lease after the last fault
			// before judging it.
			run.run(Duration.ofMillis(config.leaseMillis() + 1000));
			CheckReport report = run.finish();
			assertThat(fenced).as("a holder whose lock vanished, and who wrote after a newer holder").isNotNull();
			assertThat(run.hold(fenced).release()).as("its release finds the lock gone or taken").isEqualTo(Event.FAIL);
			assertThat(report.overlapsByDataLoss()).as("holds that overlapped because Redis forgot a lock")
				.isPositive();
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
		}
	}

	private static List<StoreWrite> lateWrites(ChaosRun run, String holdId, long after) {
		return run.store().writes().stream().filter((w) -> w.holdId().equals(holdId) && w.nanos() > after).toList();
	}

	@Test
	void shouldRecoverWhenRedisKillsTheLibrarysConnections() throws Exception {
		try (ChaosRun run = ChaosRun.standalone("CLIENT KILL")) {
			run.startWorkers(3, run.defaults());
			run.run(Duration.ofMillis(700));
			for (int i = 0; i < 6; i++) {
				String type = (i % 2 == 0) ? "normal" : "pubsub";
				long start = System.nanoTime();
				Object killed = run.redis().command("CLIENT", "KILL", "TYPE", type);
				run.fault(Fault.of("CLIENT KILL TYPE " + type, start, System.nanoTime()));
				assertThat((Long) killed).as("%s connections killed", type).isPositive();
				run.run(Duration.ofMillis(700));
			}
			CheckReport report = run.finish();
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.recoveries().get("CLIENT KILL TYPE pubsub")).hasSize(3);
			assertThat(report.recoveries().get("CLIENT KILL TYPE normal")).hasSize(3);
		}
	}

	@Test
	void shouldWakeAWaiterWhoseConnectionsWereKilledAsTheLockWasReleased() throws Exception {
		try (RedisProcess redis = RedisServers.launch()) {
			LettuceConnectionFactory holderFactory = Connections.standalone(redis.port());
			LettuceConnectionFactory waiterFactory = Connections.standalone(redis.port());
			try (RedisLockTemplate holder = RedisLockTemplate.builder(holderFactory).build();
					RedisLockTemplate waiter = RedisLockTemplate.builder(waiterFactory).build()) {
				Duration lease = Duration.ofSeconds(30);
				LockHandle held = holder.acquire(LockRequest.builder("wake").key("1").lease(lease).build());
				String lockKey = holder.lockKey(LockName.of("wake", "1"));
				String channel = lockKey + ":released";
				CompletableFuture<Long> acquiredAfter = CompletableFuture.supplyAsync(() -> {
					long start = System.nanoTime();
					try (LockHandle next = waiter
						.acquire(LockRequest.builder("wake").key("1").waitTime(Duration.ofSeconds(20)).build())) {
						return System.nanoTime() - start;
					}
				});
				await().atMost(Duration.ofSeconds(10))
					.until(() -> waiter.waitingThreads() == 1
							&& ((Long) ((List<?>) redis.command("PUBSUB", "NUMSUB", channel)).get(1)) == 1);
				long released;
				try (RespConnection raw = redis.connect()) {
					// In one transaction, so that the release message certainly finds no
					// subscriber: the waiter
					// must notice on its own that it may have missed it.
					released = System.nanoTime();
					List<?> replies = raw.pipeline(List.of(List.of("MULTI"),
							List.of("CLIENT", "KILL", "TYPE", "pubsub"), List.of("CLIENT", "KILL", "TYPE", "normal"),
							List.of("DEL", lockKey), List.of("PUBLISH", channel, "forced"), List.of("EXEC")));
					List<?> results = (List<?>) replies.get(5);
					assertThat((Long) results.get(0)).as("pub/sub connections killed").isPositive();
					assertThat((Long) results.get(1)).as("command connections killed").isPositive();
					assertThat(results.get(2)).as("lock deleted").isEqualTo(1L);
					assertThat(results.get(3)).as("subscribers that heard the release").isEqualTo(0L);
				}
				long waited = acquiredAfter.get(30, TimeUnit.SECONDS);
				Duration sinceRelease = Duration.ofNanos(System.nanoTime() - released);
				ChaosSummary.note("Waiters after CLIENT KILL",
						"- A waiter whose pub/sub and command connections were killed in the same transaction that "
								+ "released the lock (so the release message was lost) got the lock "
								+ sinceRelease.toMillis() + " ms after the release; the holder's lease had "
								+ lease.toSeconds() + " s left.");
				assertThat(sinceRelease).as("woken well before the holder's lease ended, not by it")
					.isLessThan(lease.dividedBy(3));
				assertThat(waited).isPositive();
				try {
					held.close();
				}
				catch (LockLeaseLostException ex) {
					// Expected: the lock was deleted under it.
				}
			}
			finally {
				holderFactory.destroy();
				waiterFactory.destroy();
			}
		}
	}

	@Test
	void shouldStaySafeThroughServerStalls() throws Exception {
		try (ChaosRun run = ChaosRun.standalone("server stalls", "--enable-debug-command", "yes")) {
			run.startWorkers(3, run.defaults());
			run.run(Duration.ofMillis(700));
			for (int i = 0; i < 2; i++) {
				long start = System.nanoTime();
				run.redis().command("CLIENT", "PAUSE", "1500", "ALL");
				run.fault(Fault.of(PAUSE, start, start + TimeUnit.MILLISECONDS.toNanos(1500)));
				run.run(Duration.ofMillis(2500));
				start = System.nanoTime();
				run.redis().command("DEBUG", "SLEEP", "1.5");
				run.fault(Fault.of(SLEEP, start, System.nanoTime()));
				run.run(Duration.ofMillis(1500));
			}
			CheckReport report = run.finish();
			assertSafe(report);
			assertThat(run.history().count((event) -> event.type().equals(Event.INFO)))
				.as("operations that failed with a timeout during the stalls, rather than hanging")
				.isPositive();
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.recoveries().get(PAUSE)).hasSize(2);
			assertThat(report.recoveries().get(SLEEP)).hasSize(2);
		}
	}

}
