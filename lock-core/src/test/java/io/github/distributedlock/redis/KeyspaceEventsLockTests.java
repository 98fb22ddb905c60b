package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract suite with {@link WaitStrategy#KEYSPACE_EVENTS} on a standalone redis-server.
 */
class KeyspaceEventsLockTests extends LockContractTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.KEYSPACE_EVENTS;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.standalone(redis::server);
	}

}
