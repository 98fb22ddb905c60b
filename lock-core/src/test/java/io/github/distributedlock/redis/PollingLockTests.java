package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract suite with {@link WaitStrategy#POLLING} on a standalone redis-server.
 */
class PollingLockTests extends LockContractTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.POLLING;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.standalone(redis::server);
	}

}
