package io.github.distributedlock.redis;

import java.util.List;
import java.util.function.Function;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.BundledRedis;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServers;

/**
 * Where the contract suite's Redis runs, and the wait strategies it is run with there:
 * one row of {@link LockContractTests} per pair.
 */
enum ContractTopology {

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
	SENTINEL(List.of(WaitStrategy.PUBSUB, WaitStrategy.POLLING, WaitStrategy.KEYSPACE_EVENTS)) {
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
	CLUSTER(List.of(WaitStrategy.PUBSUB, WaitStrategy.POLLING)) {
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
	};

	private final List<WaitStrategy> strategies;

	ContractTopology(List<WaitStrategy> strategies) {
		this.strategies = strategies;
	}

	List<WaitStrategy> strategies() {
		return this.strategies;
	}

	/**
	 * Start this topology's servers.
	 */
	abstract Running start();

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
		return java.util.Arrays.stream(values()).flatMap((topology) -> rows.apply(topology).stream()).toList();
	}

}
