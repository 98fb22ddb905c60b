package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link HandOffSafetyTests} on a Sentinel group, configured as an application would.
 */
class HandOffSafetySentinelTests extends HandOffSafetyTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisSentinelTopology> topology = RedisTopologyExtension.sentinel();

	@Override
	protected TestRedis redis() {
		return TestRedis.sentinel(topology::topology);
	}

	@Override
	protected LettuceConnectionFactory newFactory(Duration commandTimeout) {
		return RedisConnections.sentinel(topology.topology(), commandTimeout);
	}

	@Override
	protected String childSpec() {
		RedisSentinelTopology sentinels = topology.topology();
		return "sentinel:" + sentinels.masterName() + ":"
				+ sentinels.sentinelAddresses()
					.stream()
					.map((sentinel) -> sentinel.host() + ":" + sentinel.port())
					.collect(Collectors.joining(","));
	}

	@Override
	protected RedisServer nodeFor(String key) {
		return topology.topology().currentMaster();
	}

}
