package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.distributedlock.test.HostAndPort;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServer;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis a contract suite runs against, standalone, Sentinel or Cluster: a connection
 * factory for the engine, plus raw access for the tests' own checks.
 */
interface TestRedis {

	/**
	 * Create a connection factory configured as an application would.
	 */
	RedisConnectionFactory connectionFactory();

	/**
	 * Send a raw command, routed to the node that owns {@code args[1]} when that matters.
	 */
	@Nullable Object command(String... args);

	/**
	 * Return the keys matching a pattern, on every node.
	 */
	List<String> keys(String pattern);

	/**
	 * Return calls per command, summed over every data node.
	 */
	Map<String, Long> commandCalls();

	/**
	 * Return the number of subscribers of a channel, on every node.
	 */
	long subscribers(String channel);

	/**
	 * Return whether this is a Cluster.
	 */
	default boolean isCluster() {
		return false;
	}

	static TestRedis standalone(Supplier<RedisServer> server) {
		return new Single(server, () -> RedisConnections.standalone(server.get()));
	}

	/**
	 * A standalone server reached through Jedis instead of Lettuce.
	 */
	static TestRedis standaloneJedis(Supplier<RedisServer> server) {
		return new Single(server, () -> RedisConnections.jedis(server.get()));
	}

	static TestRedis sentinel(Supplier<RedisSentinelTopology> topology) {
		return new Single(() -> topology.get().currentMaster(), () -> {
			RedisSentinelTopology sentinels = topology.get();
			RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
			configuration.master(sentinels.masterName());
			for (HostAndPort sentinel : sentinels.sentinelAddresses()) {
				configuration.sentinel(sentinel.host(), sentinel.port());
			}
			return start(new LettuceConnectionFactory(configuration, client()));
		});
	}

	static TestRedis cluster(Supplier<RedisClusterTopology> topology) {
		return new Cluster(topology);
	}

	private static LettuceClientConfiguration client() {
		return LettuceClientConfiguration.builder().commandTimeout(RedisConnections.COMMAND_TIMEOUT).build();
	}

	private static LettuceConnectionFactory start(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * One server holds every key: standalone, or the current master of a Sentinel group.
	 */
	record Single(Supplier<RedisServer> server, Supplier<RedisConnectionFactory> factory) implements TestRedis {

		@Override
		public RedisConnectionFactory connectionFactory() {
			return this.factory.get();
		}

		@Override
		public @Nullable Object command(String... args) {
			return this.server.get().command(args);
		}

		@Override
		public List<String> keys(String pattern) {
			List<String> keys = new ArrayList<>();
			for (Object key : (List<?>) this.server.get().command("KEYS", pattern)) {
				keys.add(key.toString());
			}
			return keys;
		}

		@Override
		public Map<String, Long> commandCalls() {
			return this.server.get().commandCalls();
		}

		@Override
		public long subscribers(String channel) {
			List<?> reply = (List<?>) this.server.get().command("PUBSUB", "NUMSUB", channel);
			return ((Number) reply.get(1)).longValue();
		}

	}

	/**
	 * A Cluster of three masters.
	 */
	record Cluster(Supplier<RedisClusterTopology> topology) implements TestRedis {

		@Override
		public RedisConnectionFactory connectionFactory() {
			RedisClusterConfiguration configuration = new RedisClusterConfiguration();
			for (RedisProcess master : this.topology.get().masters()) {
				configuration.clusterNode(master.host(), master.port());
			}
			return start(new LettuceConnectionFactory(configuration, client()));
		}

		@Override
		public @Nullable Object command(String... args) {
			RedisClusterTopology cluster = this.topology.get();
			RedisServer node = (args.length > 1) ? cluster.nodeForKey(args[1]) : cluster.masters().get(0);
			return node.command(args);
		}

		@Override
		public List<String> keys(String pattern) {
			List<String> keys = new ArrayList<>();
			for (RedisProcess master : this.topology.get().masters()) {
				for (Object key : (List<?>) master.command("KEYS", pattern)) {
					keys.add(key.toString());
				}
			}
			return keys;
		}

		@Override
		public Map<String, Long> commandCalls() {
			return new HashMap<>(this.topology.get().commandCalls());
		}

		@Override
		public long subscribers(String channel) {
			long total = 0;
			for (RedisProcess node : this.topology.get().nodes()) {
				List<?> reply = (List<?>) node.command("PUBSUB", "NUMSUB", channel);
				total += ((Number) reply.get(1)).longValue();
			}
			return total;
		}

		@Override
		public boolean isCluster() {
			return true;
		}

	}

}
