package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract suite with {@link WaitStrategy#KEYSPACE_EVENTS} on a Sentinel group (master, replica, 3 sentinels), configured as an application
 * would through Spring Data Redis.
 */
class SentinelKeyspaceEventsLockTests extends LockContractTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisSentinelTopology> topology = RedisTopologyExtension.sentinel();

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.KEYSPACE_EVENTS;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.sentinel(topology::topology);
	}

}
