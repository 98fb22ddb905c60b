package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive multi-locks over several Cluster slots, taken one by one: a lock taken early
 * must stay held, renewed by the watchdog as the blocking engine's handle is, while the
 * acquisition waits for a later one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReactiveClusterMultiLockTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	private RedisConnectionFactory connectionFactory;

	private RedisLockTemplate blocking;

	private ReactiveRedisLockTemplate template;

	@BeforeAll
	void startTemplates() {
		this.connectionFactory = TestRedis.cluster(topology::topology).connectionFactory();
		this.blocking = RedisLockTemplate.builder(this.connectionFactory)
			.defaults(LockDefaults.STANDARD.withWaitTime(Duration.ofSeconds(5)))
			.build();
		this.template = ReactiveRedisLockTemplate.builder((ReactiveRedisConnectionFactory) this.connectionFactory)
			.build();
	}

	@AfterAll
	void stopTemplates() throws Exception {
		this.template.close();
		this.blocking.close();
		if (this.connectionFactory instanceof DisposableBean disposable) {
			disposable.destroy();
		}
	}

	private static LockRequest.Builder renewed(String key) {
		return LockRequest.builder("rcluster").key(key).lease(Duration.ofMillis(600)).autoRenew(true);
	}

	@Test
	void shouldKeepAnEarlyLockHeldWhileWaitingForALaterOneAcrossSlots() throws Exception {
		assertThat(HashSlots.slot(this.blocking.lockKey(renewed("a").build().name())))
			.isNotEqualTo(HashSlots.slot(this.blocking.lockKey(renewed("b").build().name())));
		assertThat(this.blocking.lockKey(renewed("a").build().name()))
			.isLessThan(this.blocking.lockKey(renewed("b").build().name()));
		LockHandle holderOfB = this.blocking.acquire(LockRequest.builder("rcluster").key("b").build());
		Mono<ReactiveLockHandle> all = this.template
			.acquireAll(List.of(renewed("a").waitTime(Duration.ofSeconds(10)).build(), renewed("b").build()))
			.cache();
		all.subscribe(null, (ex) -> {
		});
		// a is taken at once; then b is waited for, well past a's 600 ms lease.
		Thread.sleep(2000);
		LockHandle stranger = this.blocking.tryAcquire(LockRequest.builder("rcluster").key("a").build()).orElse(null);
		try {
			assertThat(stranger).as("a stranger took a lock the multi-lock waiter had taken").isNull();
		}
		finally {
			if (stranger != null) {
				stranger.close();
			}
			holderOfB.close();
			ReactiveLockHandle handle = all.block(Duration.ofSeconds(10));
			if (handle != null) {
				handle.release().onErrorResume((ex) -> Mono.empty()).block(Duration.ofSeconds(5));
			}
		}
	}

}
