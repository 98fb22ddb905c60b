package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.redis.script.LockFunctions;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What only a Redis Cluster shows, beyond the contract suite that
 * {@link LockContractClusterTests} runs on it: keyspace events refused clearly,
 * multi-locks over several slots, and the scripts' function library on every master
 * (Redis 7.0 or later).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterLockTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	private RedisConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	@BeforeAll
	void startTemplate() {
		this.connectionFactory = TestRedis.cluster(topology::topology).connectionFactory();
		this.template = RedisLockTemplate.builder(this.connectionFactory)
			.defaults(LockDefaults.STANDARD.withWaitTime(Duration.ofSeconds(5)))
			.build();
	}

	@AfterAll
	void stopTemplate() throws Exception {
		this.template.close();
		if (this.connectionFactory instanceof DisposableBean disposable) {
			disposable.destroy();
		}
	}

	@Test
	void shouldLoadTheFunctionLibraryOnEveryMasterAndCallItThere() {
		RedisServers.assumeAtLeast(7, "Loading the scripts' function library on every master");
		RedisClusterTopology cluster = topology.topology();
		for (RedisProcess master : cluster.masters()) {
			master.command("FUNCTION", "FLUSH");
		}
		// A call that finds the library missing loads it (one load interval after the
		// last load at most).
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			this.template.acquire(LockRequest.of("functions", "first")).close();
			return cluster.masters()
				.stream()
				.allMatch((master) -> master.command("FUNCTION", "LIST", "LIBRARYNAME",
						LockFunctions.LIBRARY_NAME) instanceof List<?> libraries && !libraries.isEmpty());
		});
		cluster.resetStats();
		int names = 30;
		for (int i = 0; i < names; i++) {
			this.template.acquire(LockRequest.of("functions", "k" + i)).close();
		}
		assertThat(cluster.commandCalls("fcall")).as("function calls on all masters").isEqualTo(2L * names);
		assertThat(cluster.commandCalls("evalsha") + cluster.commandCalls("eval")).as("script calls").isZero();
		assertThat(cluster.masters()).as("masters that ran a function")
			.allMatch((master) -> master.commandCalls("fcall") > 0);
	}

	@Test
	void shouldRefuseKeyspaceEventsClearlyOnACluster() {
		assertThatIllegalStateException()
			.isThrownBy(() -> this.template
				.acquire(LockRequest.builder("cluster").key("k").waitStrategy(WaitStrategy.KEYSPACE_EVENTS).build()))
			.withMessageContaining("cluster:k")
			.withMessageContaining("KEYSPACE_EVENTS")
			.withMessageContaining("use PUBSUB");
	}

	@Test
	void shouldRefuseReactiveKeyspaceEventsAsClearlyOnACluster() {
		try (ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate
			.builder((ReactiveRedisConnectionFactory) this.connectionFactory)
			.build()) {
			assertThatIllegalStateException()
				.isThrownBy(() -> reactive
					.acquire(LockRequest.builder("cluster").key("k").waitStrategy(WaitStrategy.KEYSPACE_EVENTS).build())
					.block(Duration.ofSeconds(30)))
				.withMessageContaining("cluster:k")
				.withMessageContaining("KEYSPACE_EVENTS")
				.withMessageContaining("use PUBSUB");
		}
	}

	@Test
	void shouldTakeMultiLocksSpreadOverSeveralSlotsAndNodes() {
		List<LockRequest> requests = List.of(LockRequest.of("cluster", "a"), LockRequest.of("cluster", "b"),
				LockRequest.of("cluster", "c"), LockRequest.of("cluster", "d"));
		assertThat(requests.stream().map((request) -> HashSlots.slot(this.template.lockKey(request.name()))).distinct())
			.hasSizeGreaterThan(1);
		try (LockHandle all = this.template.acquireAll(requests)) {
			assertThat(all.locks()).hasSize(4);
			assertThat(requests).allMatch((request) -> this.template.isLocked("cluster", request.name().key()));
		}
		assertThat(requests).noneMatch((request) -> this.template.isLocked("cluster", request.name().key()));
	}

	@Test
	void shouldFindTheLocksItTookFreeWhenItTriesAgainRightAfterATimeout() throws Exception {
		List<LockRequest> requests = new ArrayList<>();
		for (String key : List.of("e", "f", "g", "h")) {
			requests
				.add(LockRequest.builder("cluster").key(key).reentrant(false).waitTime(Duration.ofMillis(100)).build());
		}
		// Another owner holds the lock taken last, so the others are taken, then
		// released.
		LockRequest last = requests.stream()
			.max(Comparator.comparing((LockRequest request) -> this.template.lockKey(request.name())))
			.orElseThrow();
		try (RedisLockTemplate other = RedisLockTemplate.builder(this.connectionFactory).build();
				LockHandle blocking = other.acquire(last)) {
			for (int round = 0; round < 10; round++) {
				// Not a LockSelfDeadlockException: the locks it took are not its own any
				// more.
				assertThatExceptionOfType(LockTimeoutException.class)
					.isThrownBy(() -> this.template.acquireAll(requests));
			}
		}
		this.template.acquireAll(requests).close();
	}

}
