package io.github.distributedlock.autoconfigure;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the database index a connection factory uses, which names the keyspace
 * notification channels. It comes from {@code spring.data.redis.database} or the URL.
 */
final class RedisDatabase {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisDatabase.class.getClassLoader());

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis",
			RedisDatabase.class.getClassLoader());

	private RedisDatabase() {
	}

	static int of(RedisConnectionFactory connectionFactory) {
		if (LETTUCE_PRESENT && Lettuce.is(connectionFactory)) {
			return Lettuce.database(connectionFactory);
		}
		if (JEDIS_PRESENT && Jedis.is(connectionFactory)) {
			return Jedis.database(connectionFactory);
		}
		return 0;
	}

	private static final class Lettuce {

		static boolean is(RedisConnectionFactory connectionFactory) {
			return connectionFactory instanceof LettuceConnectionFactory;
		}

		static int database(RedisConnectionFactory connectionFactory) {
			return ((LettuceConnectionFactory) connectionFactory).getDatabase();
		}

	}

	private static final class Jedis {

		static boolean is(RedisConnectionFactory connectionFactory) {
			return connectionFactory instanceof JedisConnectionFactory;
		}

		static int database(RedisConnectionFactory connectionFactory) {
			return ((JedisConnectionFactory) connectionFactory).getDatabase();
		}

	}

}
