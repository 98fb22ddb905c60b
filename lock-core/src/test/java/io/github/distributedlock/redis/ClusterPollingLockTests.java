package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract suite with {@link WaitStrategy#POLLING} on a Redis Cluster of 3 masters, configured as an application
 * would through Spring Data Redis.
 */
class ClusterPollingLockTests extends LockContractTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.POLLING;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.cluster(topology::topology);
	}

}
