package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
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
 * costs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverTests {

	private static final String SECTION = "Sentinel failover and replica acknowledgements";

	private static final String FAILOVER = "Sentinel failover";

	private static final Duration ACK_TIMEOUT = Duration.ofMillis(100);

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
