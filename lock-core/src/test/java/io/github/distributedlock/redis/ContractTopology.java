package io.github.distributedlock.redis;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.BundledRedis;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServers;
import io.github.distributedlock.test.ValkeyBinary;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Where the contract suite's Redis runs, and the wait strategies it is run with there:
 * one row of {@link RedisContractSuite} per pair.
 * <p>
 * {@code POLLING} runs on a standalone Redis only: its wait is a loop of the attempt that
 * every row runs, with no subscription, so on another server or topology it would test
 * the same code path twice. The pub/sub and keyspace rows subscribe through each
 * topology's own connections, so they run wherever the server allows them.
 */
public enum ContractTopology {

	/**
	 * A standalone redis-server, through Lettuce.
	 */
	STANDALONE(List.of(WaitStrategy.PUBSUB, WaitStrategy.POLLING, WaitStrategy.KEYSPACE_EVENTS)) {
		@Override
		Running start() {
			RedisProcess server = RedisServers.launch();
			return new Running(TestRedis.standalone(() -> server), server);
		}
	},

	/**
	 * A Sentinel group (master, replica, 3 sentinels), configured as an application would
	 * through Spring Data Redis.
	 */
	SENTINEL(List.of(WaitStrategy.PUBSUB, WaitStrategy.KEYSPACE_EVENTS)) {
		@Override
		Running start() {
			RedisSentinelTopology topology = RedisSentinelTopology.start();
			return new Running(TestRedis.sentinel(() -> topology), topology);
		}
	},

	/**
	 * A Redis Cluster of 3 masters, configured as an application would through Spring
	 * Data Redis. Keyspace events are refused on a Cluster ({@link ClusterLockTests}).
	 */
	CLUSTER(List.of(WaitStrategy.PUBSUB)) {
		@Override
		Running start() {
			RedisClusterTopology topology = RedisClusterTopology.start();
			return new Running(TestRedis.cluster(() -> topology), topology);
		}
	},

	/**
	 * A standalone redis-server through a
	 * {@link org.springframework.data.redis.connection.jedis.JedisConnectionFactory}: a
	 * blocking client whose subscriptions need a thread of their own.
	 */
	STANDALONE_JEDIS(List.of(WaitStrategy.PUBSUB)) {
		@Override
		Running start() {
			RedisProcess server = RedisServers.launch();
			return new Running(TestRedis.standaloneJedis(() -> server), server);
		}
	},

	/**
	 * Redis 6.2, the oldest Redis supported (the scripts use {@code SET ... GET} and
	 * {@code ZADD GT}, both new in 6.2): the binary the {@code embedded-redis} test
	 * dependency ships.
	 */
	REDIS_6_2(List.of(WaitStrategy.PUBSUB)) {
		@Override
		Running start() {
			RedisProcess server = RedisProcess.builder().binary(BundledRedis.redis62()).launch();
			return new Running(TestRedis.standalone(() -> server), server);
		}
	},

	/**
	 * A standalone Valkey 8.0 server ({@link ValkeyBinary}: skipped where there is none,
	 * except in CI), the fork of Redis 7.2 that several managed services now run.
	 */
	VALKEY_8_0(List.of(WaitStrategy.PUBSUB)) {
		@Override
		Running start() {
			RedisProcess server = RedisProcess.builder().binary(ValkeyBinary.valkey80()).launch();
			String info = String.valueOf(server.command("INFO", "server"));
			if (!info.contains("valkey_version:8.0.")) {
				// A VALKEY_SERVER that names a redis-server would pass for a Valkey run.
				server.close();
				throw new IllegalStateException("Not a Valkey 8.0 server: " + info);
			}
			return new Running(TestRedis.standalone(() -> server), server);
		}
	};

	/**
	 * The system property that restricts the contract suites to some topologies: their
	 * names, separated by commas (for example {@code -Dcontract.topologies=VALKEY_8_0}).
	 */
	static final String SELECTED_PROPERTY = "contract.topologies";

	/**
	 * The system property that restricts the contract suites to some wait strategies:
	 * their names, separated by commas (for example
	 * {@code -Dcontract.strategies=PUBSUB}).
	 */
	static final String STRATEGIES_PROPERTY = "contract.strategies";

	private final List<WaitStrategy> strategies;

	ContractTopology(List<WaitStrategy> strategies) {
		this.strategies = strategies;
	}

	/**
	 * Return the wait strategies this topology's rows run with, those that
	 * {@value #STRATEGIES_PROPERTY} names if it names some.
	 */
	List<WaitStrategy> strategies() {
		return this.strategies.stream().filter((strategy) -> isNamed(STRATEGIES_PROPERTY, strategy.name())).toList();
	}

	/**
	 * Start this topology's servers.
	 */
	abstract Running start();

	/**
	 * Stop what a row of a contract suite started, as far as its setup got (a row whose
	 * server is missing is skipped in its setup, which may stop at any point): the
	 * templates, then the connection factory, then the servers.
	 */
	static void stop(@Nullable Running running, @Nullable RedisConnectionFactory connectionFactory,
			@Nullable AutoCloseable... templates) throws Exception {
		try {
			for (AutoCloseable template : templates) {
				if (template != null) {
					template.close();
				}
			}
			if (connectionFactory instanceof DisposableBean disposable) {
				disposable.destroy();
			}
		}
		finally {
			if (running != null) {
				running.close();
			}
		}
	}

	/**
	 * A started topology, stopped by {@link #close()}.
	 *
	 * @param redis access to it
	 * @param servers what to stop
	 */
	record Running(TestRedis redis, AutoCloseable servers) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			this.servers.close();
		}

	}

	static <T> List<T> rows(Function<ContractTopology, List<T>> rows) {
		return Arrays.stream(values())
			.filter(ContractTopology::isSelected)
			.flatMap((topology) -> rows.apply(topology).stream())
			.toList();
	}

	/**
	 * Return whether the suites run this topology: all do unless
	 * {@value #SELECTED_PROPERTY} names some.
	 */
	boolean isSelected() {
		return isNamed(SELECTED_PROPERTY, name());
	}

	private static boolean isNamed(String property, String name) {
		String selected = System.getProperty(property, "");
		return selected.isBlank() || Arrays.stream(selected.split(",")).map(String::strip).anyMatch(name::equals);
	}

}
