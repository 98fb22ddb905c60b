package io.github.distributedlock.redis;

import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link FencingCounterTests} on a Redis Cluster of 3 masters: each lock's script is
 * handed the counter of its own slot, which the Cluster routes with the lock.
 */
class ClusterFencingCounterTests extends FencingCounterTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	@Override
	protected TestRedis redis() {
		return TestRedis.cluster(topology::topology);
	}

}
