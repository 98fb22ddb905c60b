package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.test.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the tests need to run the auto-configuration on a real redis-server.
 */
final class TestRedis {

	/**
	 * Boot's Redis auto-configuration and all of ours.
	 */
	static final AutoConfigurations ALL = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			DistributedLockLettuceAutoConfiguration.class, DistributedLockAutoConfiguration.class,
			DistributedLockAspectAutoConfiguration.class, DistributedLockObservationAutoConfiguration.class,
			DistributedLockEndpointAutoConfiguration.class);

	private TestRedis() {
	}

	/**
	 * Return a context runner with every auto-configuration of the starter and Boot's
	 * Redis, connected to the server.
	 */
	static ApplicationContextRunner contextRunner(RedisServer server) {
		return new ApplicationContextRunner().withConfiguration(ALL).withPropertyValues(properties(server));
	}

	/**
	 * Return the {@code spring.data.redis.*} properties that connect to the server.
	 */
	static String[] properties(RedisServer server) {
		return new String[] { "spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
				"spring.data.redis.timeout=2s" };
	}

}
