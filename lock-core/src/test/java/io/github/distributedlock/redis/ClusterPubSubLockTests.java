package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.RedisClusterTopology;
import io.github.distributedlock.test.RedisTopologyExtension;
import java.util.List;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The contract suite with {@link WaitStrategy#PUBSUB} on a Redis Cluster of 3 masters, configured as an application
 * would through Spring Data Redis.
 */
class ClusterPubSubLockTests extends LockContractTests {

	@RegisterExtension
	static RedisTopologyExtension<RedisClusterTopology> topology = RedisTopologyExtension.cluster();

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.PUBSUB;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.cluster(topology::topology);
	}

	@Test
	void shouldRefuseKeyspaceEventsClearlyOnACluster() {
		assertThatIllegalStateException()
			.isThrownBy(() -> this.template.acquire(
					LockRequest.builder("cluster").key("k").waitStrategy(WaitStrategy.KEYSPACE_EVENTS).build()))
			.withMessageContaining("cluster:k")
			.withMessageContaining("KEYSPACE_EVENTS")
			.withMessageContaining("use PUBSUB");
	}

	@Test
	void shouldTakeMultiLocksSpreadOverSeveralSlotsAndNodes() {
		List<LockRequest> requests = List.of(LockRequest.of("cluster", "a"), LockRequest.of("cluster", "b"),
				LockRequest.of("cluster", "c"), LockRequest.of("cluster", "d"));
		assertThat(requests.stream().map((request) -> HashSlots.slot(this.template.lockKey(request.name()))).distinct())
			.hasSizeGreaterThan(1);
		try (LockHandle all = this.template.acquireAll(requests)) {
			assertThat(all.locks()).hasSize(4);
			assertThat(requests).allMatch((request) -> this.template.isLocked("cluster", request.name().key()));
		}
		assertThat(requests).noneMatch((request) -> this.template.isLocked("cluster", request.name().key()));
	}

}
