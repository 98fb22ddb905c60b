package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract suite with {@link WaitStrategy#PUBSUB} on a standalone redis-server, reached
 * through a {@link org.springframework.data.redis.connection.jedis.JedisConnectionFactory}:
 * a blocking client whose subscriptions need a thread of their own.
 */
class JedisPubSubLockTests extends LockContractTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.PUBSUB;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.standaloneJedis(redis::server);
	}

}
