package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Sentinel failover, with and without {@code replicaAcknowledgements(1, ...)}: how long a
 * lock exists only on the master, what a failover loses, and what waiting for the replica
 * costs; and that a cohort's block of tokens, lost with the old master, leaves tokens
 * increasing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverTests {

	private static final String SECTION = "Sentinel failover and replica acknowledgements";

	private static final String FAILOVER = "Sentinel failover";

	private static final Duration ACK_TIMEOUT = Duration.ofMillis(100);

	/** The tokens a cohort reserves, and the holders it may pass to. */
	private static final int BLOCK = 16;

	private static final LockName COHORT_LOCK = LockName.of("probe", "cohort");

	@RegisterExtension
	static RedisTopologyExtension<RedisSentinelTopology> topology = RedisTopologyExtension.sentinel();

	@Test
	@Order(1)
	void shouldHaveEveryAcknowledgedLockOnTheReplicaAndMeasureWhatWaitingCosts() {
		RedisSentinelTopology sentinel = topology.topology();
		LettuceConnectionFactory factory = Connections.sentinel(sentinel);
		try (RedisLockTemplate plain = RedisLockTemplate.builder(factory).build();
				RedisLockTemplate acked = RedisLockTemplate.builder(factory)
					.replicaAcknowledgements(1, ACK_TIMEOUT)
					.build()) {
			RedisProcess replica = otherThan(sentinel.currentMaster(), sentinel);
			Sample without = new Sample();
			Sample with = new Sample();
			for (int round = 0; round < 8; round++) {
				without.measure(plain, replica, "plain", 50);
				with.measure(acked, replica, "acked", 50);
			}
			ChaosSummary.note(SECTION, "- Acquire latency (uncontended, sequential, Sentinel group on loopback): "
					+ "without WAIT p50 " + without.latency(50) + " µs, p99 " + without.latency(99) + " µs; with "
					+ "replicaAcknowledgements(1, " + ACK_TIMEOUT.toMillis() + " ms) p50 " + with.latency(50)
					+ " µs, p99 " + with.latency(99) + " µs (" + without.latencies.size() + " acquisitions each).");
			ChaosSummary.note(SECTION, "- Steady-state window: a read sent to the replica right after acquire returned "
					+ "missed the lock in " + without.missing + " of " + without.latencies.size() + " acquisitions "
					+ "without WAIT and " + with.missing + " of " + with.latencies.size() + " with it; without WAIT "
					+ "the lock was on the replica within p50 " + without.lag(50) + " µs, p99 " + without.lag(99)
					+ " µs, max " + without.lag(100) + " µs of acquire returning: the window in which a failover "
					+ "after a master crash loses a lock just acquired.");
			assertThat(with.missing).as("acknowledged locks missing on the replica when acquire returned").isZero();
			assertThat(without.latencies).hasSize(400);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	@Order(2)
	void shouldShowWhatAFailoverLosesWithAndWithoutReplicaAcknowledgements() throws Exception {
		RedisSentinelTopology sentinel = topology.topology();
		LettuceConnectionFactory factory = Connections.sentinel(sentinel);
		LettuceConnectionFactory rivalFactory = Connections.sentinel(sentinel);
		try (ChaosRun run = ChaosRun.sentinel(FAILOVER);
				RedisLockTemplate plain = RedisLockTemplate.builder(factory).build();
				RedisLockTemplate acked = RedisLockTemplate.builder(factory)
					.replicaAcknowledgements(1, ACK_TIMEOUT)
					.build();
				RedisLockTemplate rival = RedisLockTemplate.builder(rivalFactory).build()) {
			WorkerConfig config = run.defaults();
			run.startSentinelWorkers(2, withKeys(config, List.of("k0", "k1"), 0), sentinel);
			run.startSentinelWorkers(2, withKeys(config, List.of("a0", "a1"), 1), sentinel);
			// Connected to the current master, as long-running applications are.
			plain.acquire(LockRequest.of("probe", "warm-up")).close();
			acked.acquire(LockRequest.of("probe", "warm-up")).close();
			run.run(Duration.ofSeconds(1));

			RedisProcess oldMaster = sentinel.currentMaster();
			long start = System.nanoTime();
			sentinel.failover();
			long promoted = System.nanoTime();
			// The replica is promoted, but clients still talk to the old master until
			// Sentinel demotes it.
			LockHandle doomed = plain
				.acquire(LockRequest.builder("probe").key("plain").lease(Duration.ofSeconds(60)).build());
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> acked
					.acquire(LockRequest.builder("probe").key("acked").lease(Duration.ofSeconds(60)).build()))
				.withMessageContaining("probe:acked")
				.withMessageContaining("0 of 1 replicas");
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> String.valueOf(oldMaster.command("INFO", "replication")).contains("role:slave"));
			long demoted = System.nanoTime();
			run.fault(Fault.losingData(FAILOVER, start, demoted));
			sentinel.awaitReplicaInSync();
			run.run(Duration.ofSeconds(2));

			try (LockHandle second = rival
				.acquire(LockRequest.builder("probe").key("plain").waitTime(Duration.ofSeconds(5)).build())) {
				assertThat(second.fencingToken()).as("fencing still orders the two holders")
					.isGreaterThan(doomed.fencingToken());
				assertThat(doomed.isHeld()).as("the first holder's lock was lost with the old master").isFalse();
			}
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(doomed::close);
			acked.acquire(LockRequest.builder("probe").key("acked").lease(Duration.ofSeconds(1)).build()).close();

			Map<String, Predicate<String>> groups = new LinkedHashMap<>();
			groups.put(FAILOVER + ", no WAIT", (key) -> key.startsWith("k"));
			groups.put(FAILOVER + ", replicaAcknowledgements(1, 100 ms)", (key) -> key.startsWith("a"));
			Map<String, CheckReport> reports = run.finish(groups);
			long window = (demoted - promoted) / 1_000_000;
			ChaosSummary.note(SECTION, "- Failover window (SENTINEL FAILOVER, default Sentinel timings): the old "
					+ "master kept accepting lock writes for " + window + " ms after the replica was promoted, until "
					+ "Sentinel demoted it. Without WAIT, a lock taken then (probe:plain) was believed held, lost at "
					+ "demotion and taken by another client; with WAIT, the same acquisition (probe:acked) failed "
					+ "at once with LockAccessException (0 of 1 replicas acknowledged) and nothing was lost.");
			ChaosSummary.note(SECTION,
					"- During the failover, workers without WAIT: " + summary(reports.get(FAILOVER + ", no WAIT"))
							+ "; workers with WAIT: "
							+ summary(reports.get(FAILOVER + ", replicaAcknowledgements(1, 100 ms)")) + ".");
			// Fencing keeps both groups safe, and with WAIT no lock is lost at all, not
			// even when the WAIT is re-sent
			// to the new master after the reconnect (see
			// ReplicaAcknowledgementReconnectTests).
			reports.values().forEach(HolderFaultTests::assertSafe);
			assertThat(reports.get(FAILOVER + ", replicaAcknowledgements(1, 100 ms)").overlapsByDataLoss())
				.as("locks lost by the failover although a replica acknowledged them")
				.isZero();
		}
		finally {
			factory.destroy();
			rivalFactory.destroy();
		}
	}

	/**
	 * A cohort opened on the old master during a failover (docs/design/cohorting.md, rule
	 * 2): its block of tokens lives only in the old master's fencing counter, which the
	 * demotion loses. The counter leads the old master's clock by at most a block, so a
	 * holder on the new master still gets a token above every token shown before, the
	 * block's and the next grant's.
	 */
	@Test
	@Order(3)
	void shouldOrderAHolderAfterAFailoverAboveACohortsLostBlock() throws Exception {
		RedisSentinelTopology sentinel = topology.topology();
		sentinel.awaitReplicaInSync();
		LettuceConnectionFactory factory = Connections.sentinel(sentinel);
		LettuceConnectionFactory rivalFactory = Connections.sentinel(sentinel);
		ExecutorService threads = Executors.newFixedThreadPool(3);
		try (RedisLockTemplate cohorts = RedisLockTemplate.builder(factory)
			.cohorts(BLOCK, Duration.ofSeconds(5))
			.build(); RedisLockTemplate rival = RedisLockTemplate.builder(rivalFactory).build()) {
			// Connected to the current master, as long-running applications are, for
			// commands and for messages: A, waiting, subscribes there.
			cohorts.acquire(LockRequest.of("probe", "warm-up")).close();
			RedisProcess oldMaster = sentinel.currentMaster();
			LockHandle first = cohorts.acquire(cohortRequest());
			CountDownLatch aHolds = new CountDownLatch(1);
			CountDownLatch aReleases = new CountDownLatch(1);
			Future<long[]> a = threads.submit(() -> holdUntil(cohorts, aHolds, aReleases));
			awaitWaiters(cohorts, 1);
			// A files its request before B joins, so that it heads alone and opens no
			// cohort, and first's release reserves the lock for it: a plain one could
			// wake C later, as below.
			String requests = LockKeys.requests(cohorts.lockKey(COHORT_LOCK));
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> ((Number) oldMaster.command("ZCARD", requests)).longValue() > 0);
			sentinel.failover();
			// Until Sentinel demotes it, the old master takes the cohort's writes: A
			// heads
			// the line alone; B, promoted with C behind it, opens a cohort with a block;
			// B's release passes the lock to C in memory.
			Future<long[]> b = threads.submit(() -> holdOnce(cohorts));
			awaitWaiters(cohorts, 2);
			Future<long[]> c = threads.submit(() -> holdOnce(cohorts));
			awaitWaiters(cohorts, 3);
			first.close();
			// A releases once B, promoted, has filed its request: a release before B's
			// first attempt sends a plain message that can wake C under B's cohort
			// after B's grant (rule 5), and C then takes no pass.
			assertThat(aHolds.await(30, TimeUnit.SECONDS)).as("A holds").isTrue();
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> ((Number) oldMaster.command("ZCARD", requests)).longValue() > 0);
			aReleases.countDown();
			long[] headedAlone = a.get(30, TimeUnit.SECONDS);
			long[] opened = b.get(30, TimeUnit.SECONDS);
			long[] passed = c.get(30, TimeUnit.SECONDS);
			assertThat(headedAlone[1]).as("A's hold is Redis's").isEqualTo(headedAlone[0]);
			assertThat(opened[1]).as("B's hold is Redis's").isEqualTo(opened[0]);
			assertThat(passed[1]).as("C holds B's Redis hold").isEqualTo(opened[1]);
			assertThat(passed[0]).as("C's token, the block's next").isEqualTo(opened[0] + 1);
			long blockEnd = opened[0] + BLOCK - 1;
			String fence = LockKeys.fence(cohorts.lockKey(COHORT_LOCK));
			long counter = counter(oldMaster, fence);
			assertThat(counter).as("the old master's counter, past the block's first token")
				.isGreaterThanOrEqualTo(blockEnd);
			// Rule 2 itself: tokens are the server's µs, and the counter leads them by at
			// most a block.
			assertThat(counter - micros(oldMaster)).as("the counter's lead on the old master's clock, in µs")
				.isLessThanOrEqualTo(BLOCK);
			// The next grant on the old master: its token is the last shown before the
			// failover.
			long lastShown = holdOnce(cohorts)[0];
			assertThat(lastShown).as("the token after the cohort's").isGreaterThan(blockEnd);

			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> String.valueOf(oldMaster.command("INFO", "replication")).contains("role:slave"));
			sentinel.awaitReplicaInSync();
			assertThat(counter(sentinel.currentMaster(), fence)).as("the new master's counter, which lost the block")
				.isLessThan(opened[0]);
			// The first hold, released on the old master only, is still on the new one
			// until its lease ends: end it, as an operator would.
			rival.forceRelease(COHORT_LOCK);
			try (LockHandle after = rival.acquire(cohortRequest())) {
				assertThat(after.fencingToken()).as("the token of the first holder after the failover")
					.isGreaterThan(lastShown);
			}
		}
		finally {
			threads.shutdownNow();
			factory.destroy();
			rivalFactory.destroy();
		}
	}

	/** Take the cohort's lock and close it once told: its token and Redis's. */
	private static long[] holdUntil(RedisLockTemplate template, CountDownLatch holds, CountDownLatch release)
			throws InterruptedException {
		try (LockHandle held = template.acquire(cohortRequest())) {
			holds.countDown();
			if (!release.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("A was never told to release");
			}
			return new long[] { held.fencingToken(), ((RedisLockHandle) held).grant().token() };
		}
	}

	/**
	 * Take the cohort's lock and close it: its token, and the token Redis records.
	 */
	private static long[] holdOnce(RedisLockTemplate template) {
		try (LockHandle held = template.acquire(cohortRequest())) {
			return new long[] { held.fencingToken(), ((RedisLockHandle) held).grant().token() };
		}
	}

	private static LockRequest cohortRequest() {
		return LockRequest.builder(COHORT_LOCK.scope())
			.key(COHORT_LOCK.key())
			.lease(Duration.ofSeconds(30))
			.waitTime(Duration.ofSeconds(20))
			.build();
	}

	private static long micros(RedisProcess server) {
		List<?> time = (List<?>) server.command("TIME");
		return Long.parseLong(String.valueOf(time.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(time.get(1)));
	}

	private static long counter(RedisProcess server, String fence) {
		Object value = server.command("GET", fence);
		return (value != null) ? Long.parseLong(String.valueOf(value)) : 0;
	}

	private static void awaitWaiters(RedisLockTemplate template, int waiters) throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (template.waitingThreads() < waiters && System.nanoTime() - end < 0) {
			Thread.sleep(1);
		}
		assertThat(template.waitingThreads()).as("callers waiting").isGreaterThanOrEqualTo(waiters);
	}

	private static String summary(CheckReport report) {
		return report.acquisitions() + " acquired, " + report.indeterminate() + " failed with an error, "
				+ report.overlapsByDataLoss() + " overlaps from lost locks, " + report.staleWritesRejected()
				+ " stale writes rejected, " + report.staleWritesAccepted().size() + " accepted";
	}

	private static WorkerConfig withKeys(WorkerConfig config, List<String> keys, int replicaAcknowledgements) {
		return new WorkerConfig(config.name(), config.redis(), config.storePort(), keys, config.threads(),
				config.leaseMillis(), config.waitMillis(), config.holdMinMillis(), config.holdMaxMillis(),
				config.commandTimeoutMillis(), replicaAcknowledgements, config.seed());
	}

	private static RedisProcess otherThan(RedisProcess master, RedisSentinelTopology sentinel) {
		return (master == sentinel.master()) ? sentinel.replica() : sentinel.master();
	}

	/**
	 * Acquire latencies, and for each acquisition whether and how late the lock reached
	 * the replica.
	 */
	private static final class Sample {

		private final List<Long> latencies = new ArrayList<>();

		private final List<Long> lags = new ArrayList<>();

		private int missing;

		void measure(RedisLockTemplate template, RedisProcess replica, String scope, int count) {
			for (int i = 0; i < count; i++) {
				LockRequest request = LockRequest.builder(scope).key(Integer.toString(i)).build();
				long start = System.nanoTime();
				try (LockHandle held = template.acquire(request)) {
					long acquired = System.nanoTime();
					this.latencies.add((acquired - start) / 1000);
					String key = template.lockKey(LockName.of(scope, Integer.toString(i)));
					if (replica.command("HGET", key, "owner") == null) {
						this.missing++;
						while (replica.command("HGET", key, "owner") == null) {
							Thread.onSpinWait();
						}
					}
					this.lags.add((System.nanoTime() - acquired) / 1000);
				}
			}
		}

		long latency(int percentile) {
			return ChaosSummary.percentile(this.latencies.stream().sorted().toList(), percentile);
		}

		long lag(int percentile) {
			return ChaosSummary.percentile(this.lags.stream().sorted().toList(), percentile);
		}

	}

}
