package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.distributedlock.test.HostAndPort;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
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
		RedisSentinelTopology sentinels = topology.topology();
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(sentinels.masterName());
		for (HostAndPort sentinel : sentinels.sentinelAddresses()) {
			configuration.sentinel(sentinel.host(), sentinel.port());
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Override
	protected String childSpec() {
		RedisSentinelTopology sentinels = topology.topology();
		return "sentinel:" + sentinels.masterName() + ":" + sentinels.sentinelAddresses()
			.stream()
			.map((sentinel) -> sentinel.host() + ":" + sentinel.port())
			.collect(Collectors.joining(","));
	}

	@Override
	protected RedisServer nodeFor(String key) {
		return topology.topology().currentMaster();
	}

}
