package io.github.distributedlock.redis;

import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link FencingCounterTests} on a standalone Redis.
 */
class StandaloneFencingCounterTests extends FencingCounterTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Override
	protected TestRedis redis() {
		return TestRedis.standalone(redis::server);
	}

}
