package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.test.HostAndPort;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import redis.clients.jedis.JedisPoolConfig;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories for tests, with a short command timeout so that a failing test
 * fails fast.
 */
public final class RedisConnections {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * The timeout for child JVMs, which check exclusion, not timeouts, and may start
	 * while the machine is busy.
	 */
	static final Duration CHILD_TIMEOUT = Duration.ofSeconds(15);

	private RedisConnections() {
	}

	public static LettuceConnectionFactory standalone(RedisServer server) {
		return standalone(server.host(), server.port());
	}

	public static LettuceConnectionFactory standalone(String host, int port) {
		return standalone(host, port, COMMAND_TIMEOUT);
	}

	public static LettuceConnectionFactory standalone(String host, int port, Duration timeout) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host, port);
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(timeout)
			.clientOptions(ClientOptions.builder()
				.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
				.build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A factory that finds the master of a Sentinel group through its Sentinels.
	 */
	static LettuceConnectionFactory sentinel(RedisSentinelTopology topology, Duration timeout) {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(topology.masterName());
		for (HostAndPort sentinel : topology.sentinelAddresses()) {
			configuration.sentinel(sentinel.host(), sentinel.port());
		}
		return start(new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(timeout).build()));
	}

	/**
	 * A factory for a Cluster, seeded with its masters.
	 */
	static LettuceConnectionFactory cluster(RedisClusterTopology topology, Duration timeout) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		for (RedisProcess master : topology.masters()) {
			configuration.clusterNode(master.host(), master.port());
		}
		return start(new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(timeout).build()));
	}

	private static LettuceConnectionFactory start(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A Jedis factory, pooled as Spring Boot configures one, with a pool large enough for
	 * the contract suite's concurrent tests and a bounded wait for a pooled connection.
	 */
	static JedisConnectionFactory jedis(RedisServer server) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
		JedisPoolConfig pool = new JedisPoolConfig();
		pool.setMaxTotal(64);
		pool.setMaxIdle(64);
		pool.setMaxWait(COMMAND_TIMEOUT);
		JedisClientConfiguration client = JedisClientConfiguration.builder()
			.connectTimeout(COMMAND_TIMEOUT)
			.readTimeout(COMMAND_TIMEOUT)
			.usePooling()
			.poolConfig(pool)
			.build();
		JedisConnectionFactory factory = new JedisConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
