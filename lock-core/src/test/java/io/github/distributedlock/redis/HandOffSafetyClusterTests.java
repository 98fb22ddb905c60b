package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link HandOffSafetyTests} on a Redis Cluster of 3 masters, configured as an
 * application would.
 */
class HandOffSafetyClusterTests extends HandOffSafetyTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	@Override
	protected TestRedis redis() {
		return TestRedis.cluster(topology::topology);
	}

	@Override
	protected LettuceConnectionFactory newFactory(Duration commandTimeout) {
		return RedisConnections.cluster(topology.topology(), commandTimeout);
	}

	@Override
	protected String childSpec() {
		return "cluster:" + topology.topology()
			.masters()
			.stream()
			.map((master) -> master.host() + ":" + master.port())
			.collect(Collectors.joining(","));
	}

	@Override
	protected RedisServer nodeFor(String key) {
		return topology.topology().nodeForKey(key);
	}

}
