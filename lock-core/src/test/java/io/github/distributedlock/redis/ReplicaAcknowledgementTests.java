package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The optional {@code WAIT} for replicas after each acquisition, on a Sentinel group.
 */
class ReplicaAcknowledgementTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisSentinelTopology> topology = RedisTopologyExtension.sentinel();

	@Test
	void shouldAcquireOnceTheReplicaHasTheLock() {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(1, Duration.ofSeconds(1))
			.build(); LockHandle held = template.acquire(LockRequest.of("replicated", "1"))) {
			Object owner = topology.topology().replica().command("HGET", template.lockKey(held.name()), "owner");
			assertThat(owner).as("the replica already has the lock").isNotNull();
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

	@Test
	void shouldRefuseALockThatTheReplicasDidNotAcknowledge() {
		RedisConnectionFactory factory = TestRedis.sentinel(topology::topology).connectionFactory();
		try (RedisLockTemplate template = RedisLockTemplate.builder(factory)
			.replicaAcknowledgements(2, Duration.ofMillis(100))
			.build()) {
			assertThatExceptionOfType(LockAccessException.class)
				.isThrownBy(() -> template.acquire(LockRequest.of("replicated", "2")))
				.withMessageContaining("replicated:2")
				.withMessageContaining("1 of 2 replicas");
			assertThat(template.isLocked("replicated", "2")).as("released again").isFalse();
		}
		finally {
			((LettuceConnectionFactory) factory).destroy();
		}
	}

}
