package io.github.distributedlock.redis;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.test.BundledRedis;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract suite with {@link WaitStrategy#PUBSUB} on Redis 6.2, the oldest Redis
 * supported (the scripts use {@code SET ... GET} and {@code ZADD GT}, both new in 6.2): the
 * binary the {@code embedded-redis} test dependency ships.
 */
class Redis62PubSubLockTests extends LockContractTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated(BundledRedis::redis62);

	@Override
	protected WaitStrategy strategy() {
		return WaitStrategy.PUBSUB;
	}

	@Override
	protected TestRedis redis() {
		return TestRedis.standalone(redis::server);
	}

	@Test
	void shouldRunOnRedis62AndCheckItsVersion() {
		String info = String.valueOf(redis.server().command("INFO", "server"));
		assertThat(info).contains("redis_version:6.2.");
		LettuceConnectionFactory connectionFactory = RedisConnections.standalone(redis.server());
		try {
			assertThat(RedisVersion.check(connectionFactory)).as("versions the startup check read")
				.singleElement()
				.asString()
				.startsWith("6.2.");
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
