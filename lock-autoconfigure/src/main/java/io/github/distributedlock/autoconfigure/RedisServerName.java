package io.github.distributedlock.autoconfigure;

import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.NamedNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisSocketConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Names the Redis server a connection factory reaches, for messages: its address, or the
 * master name and Sentinels it is found through.
 */
final class RedisServerName {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisServerName.class.getClassLoader());

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis",
			RedisServerName.class.getClassLoader());

	private RedisServerName() {
	}

	static String of(RedisConnectionFactory connectionFactory) {
		if (LETTUCE_PRESENT && Lettuce.is(connectionFactory)) {
			return Lettuce.name(connectionFactory);
		}
		if (JEDIS_PRESENT && Jedis.is(connectionFactory)) {
			return Jedis.name(connectionFactory);
		}
		return "the server of " + connectionFactory.getClass().getName();
	}

	private static String sentinels(@Nullable RedisSentinelConfiguration sentinels) {
		if (sentinels == null) {
			return "the Sentinel master";
		}
		NamedNode master = sentinels.getMaster();
		return "the master '" + ((master != null) ? master.getName() : null) + "' of the Sentinels "
				+ sentinels.getSentinels().stream().map(RedisNode::asString).collect(Collectors.joining(", "));
	}

	private static final class Lettuce {

		static boolean is(RedisConnectionFactory connectionFactory) {
			return connectionFactory instanceof LettuceConnectionFactory;
		}

		static String name(RedisConnectionFactory connectionFactory) {
			LettuceConnectionFactory lettuce = (LettuceConnectionFactory) connectionFactory;
			if (lettuce.isRedisSentinelAware()) {
				return sentinels(lettuce.getSentinelConfiguration());
			}
			RedisSocketConfiguration socket = lettuce.getSocketConfiguration();
			if (socket != null) {
				return socket.getSocket();
			}
			return lettuce.getHostName() + ":" + lettuce.getPort();
		}

	}

	private static final class Jedis {

		static boolean is(RedisConnectionFactory connectionFactory) {
			return connectionFactory instanceof JedisConnectionFactory;
		}

		static String name(RedisConnectionFactory connectionFactory) {
			JedisConnectionFactory jedis = (JedisConnectionFactory) connectionFactory;
			if (jedis.isRedisSentinelAware()) {
				return sentinels(jedis.getSentinelConfiguration());
			}
			return jedis.getHostName() + ":" + jedis.getPort();
		}

	}

}
