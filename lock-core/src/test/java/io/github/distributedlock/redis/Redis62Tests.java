package io.github.distributedlock.redis;

import io.github.distributedlock.test.BundledRedis;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The version check on Redis 6.2, the oldest Redis supported: the binary the
 * {@code embedded-redis} test dependency ships. {@link LockContractTests} runs the contract
 * suite on it ({@link ContractTopology#REDIS_6_2}).
 */
class Redis62Tests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated(BundledRedis::redis62);

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
