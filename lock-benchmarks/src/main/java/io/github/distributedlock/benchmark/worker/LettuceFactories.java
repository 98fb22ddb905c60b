package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Spring Data Redis connection factories with the defaults an application gets, plus a
 * finite command timeout.
 */
final class LettuceFactories {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private LettuceFactories() {
	}

	static LettuceConnectionFactory create(String host, int port, boolean cluster) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.build();
		LettuceConnectionFactory factory = cluster
				? new LettuceConnectionFactory(new RedisClusterConfiguration(List.of(host + ":" + port)), client)
				: new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
