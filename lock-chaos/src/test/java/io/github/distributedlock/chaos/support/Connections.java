package io.github.distributedlock.chaos.support;

import java.time.Duration;

import io.github.distributedlock.test.HostAndPort;
import io.github.distributedlock.test.RedisSentinelTopology;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lettuce connection factories configured as an application configures them, started and
 * ready.
 */
public final class Connections {

	/**
	 * The command timeout of the tests' factories: short, so that a failure fails fast.
	 */
	public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private Connections() {
	}

	/**
	 * Return a factory for a Redis on loopback, as the default user.
	 * @param port the port
	 * @return the started factory
	 */
	public static LettuceConnectionFactory standalone(int port) {
		return standalone(port, null, null);
	}

	/**
	 * Return a factory for a Redis on loopback that logs in as an ACL user.
	 * @param port the port
	 * @param username the user, or {@code null} for the default user
	 * @param password the password, or {@code null}
	 * @return the started factory
	 */
	public static LettuceConnectionFactory standalone(int port, @Nullable String username, @Nullable String password) {
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("127.0.0.1", port);
		if (username != null) {
			server.setUsername(username);
		}
		if (password != null) {
			server.setPassword(password);
		}
		return start(new LettuceConnectionFactory(server,
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build()));
	}

	/**
	 * Return a factory that finds the master of a Sentinel group through its Sentinels.
	 * @param topology the Sentinel group
	 * @return the started factory
	 */
	public static LettuceConnectionFactory sentinel(RedisSentinelTopology topology) {
		RedisSentinelConfiguration sentinels = new RedisSentinelConfiguration();
		sentinels.master(topology.masterName());
		for (HostAndPort sentinel : topology.sentinelAddresses()) {
			sentinels.sentinel(sentinel.host(), sentinel.port());
		}
		return start(new LettuceConnectionFactory(sentinels,
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build()));
	}

	/**
	 * Start a factory.
	 * @param factory the factory
	 * @return the factory, started
	 */
	public static LettuceConnectionFactory start(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
