package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.util.ClassUtils;

/**
 * Sends Redis {@code WAIT} on the connection that carried the lock write. Kept apart so that
 * Lettuce classes are only loaded when Lettuce is there.
 */
final class ReplicaWait {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ReplicaWait.class.getClassLoader());

	private ReplicaWait() {
	}

	static @Nullable Object send(RedisConnection connection, int replicas, long timeoutMillis) {
		byte[][] args = { Integer.toString(replicas).getBytes(StandardCharsets.US_ASCII),
				Long.toString(timeoutMillis).getBytes(StandardCharsets.US_ASCII) };
		RedisConnection target = connection;
		while (target instanceof DecoratedRedisConnection decorated) {
			target = decorated.getDelegate();
		}
		if (LETTUCE && target instanceof LettuceConnection) {
			return Lettuce.send((LettuceConnection) target, args);
		}
		return connection.execute("WAIT", args);
	}

	private static final class Lettuce {

		static @Nullable Object send(LettuceConnection connection, byte[][] args) {
			// Lettuce needs to be told that WAIT answers with an integer.
			return connection.execute("WAIT", new IntegerOutput<>(ByteArrayCodec.INSTANCE), args);
		}

	}

}
