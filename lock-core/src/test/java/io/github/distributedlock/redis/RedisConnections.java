package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.test.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories for tests, with a short command timeout so that a failing test
 * fails fast.
 */
final class RedisConnections {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private RedisConnections() {
	}

	static LettuceConnectionFactory standalone(RedisServer server) {
		return standalone(server.host(), server.port());
	}

	static LettuceConnectionFactory standalone(String host, int port) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host, port);
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
