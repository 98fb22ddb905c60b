package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ByteArrayOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Sends Redis {@code WAIT}, and {@code CLIENT INFO} to tell which connection carried it.
 * Kept apart so that Lettuce classes are only loaded when Lettuce is there.
 */
final class ReplicaWait {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ReplicaWait.class.getClassLoader());

	private static final byte[] INFO = "INFO".getBytes(StandardCharsets.US_ASCII);

	private ReplicaWait() {
	}

	/**
	 * Send {@code WAIT}.
	 * @return how many replicas acknowledged every write sent so far on this connection
	 */
	static long send(RedisConnection connection, int replicas, long timeoutMillis) {
		byte[][] args = { Integer.toString(replicas).getBytes(StandardCharsets.US_ASCII),
				Long.toString(timeoutMillis).getBytes(StandardCharsets.US_ASCII) };
		RedisConnection target = unwrap(connection);
		Object acked = (LETTUCE && target instanceof LettuceConnection) ? Lettuce.waitFor((LettuceConnection) target, args)
				: connection.execute("WAIT", args);
		return (acked instanceof Number number) ? number.longValue() : 0;
	}

	/**
	 * Send {@code WAIT} and identify the connection that ran it, in one round trip where the
	 * client allows it: Redis answers the second command only after the first, on the same
	 * connection.
	 * @return how many replicas acknowledged, and the {@link #identity identity} of the
	 * connection
	 */
	static Acknowledgement sendAndIdentify(RedisConnection connection, int replicas, long timeoutMillis) {
		RedisConnection target = unwrap(connection);
		if (LETTUCE && target instanceof LettuceConnection) {
			return Lettuce.sendAndIdentify((LettuceConnection) target, replicas, timeoutMillis);
		}
		long acked = send(connection, replicas, timeoutMillis);
		return new Acknowledgement(acked, identity(connection));
	}

	/**
	 * Identify the server-side connection: its client id and the server address it reached.
	 * A reconnect, to the same server or another, yields a different identity (client ids
	 * are unique per running server).
	 */
	static String identity(RedisConnection connection) {
		RedisConnection target = unwrap(connection);
		return identity((LETTUCE && target instanceof LettuceConnection)
				? Lettuce.clientInfo((LettuceConnection) target) : connection.execute("CLIENT", INFO));
	}

	private static String identity(@Nullable Object info) {
		String text = (info instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(info);
		String id = null;
		String serverAddress = null;
		for (String field : text.trim().split(" ")) {
			if (field.startsWith("id=")) {
				id = field.substring(3);
			}
			else if (field.startsWith("laddr=")) {
				serverAddress = field.substring(6);
			}
		}
		if (id == null || serverAddress == null) {
			throw new IllegalStateException("unexpected CLIENT INFO reply: " + text);
		}
		return id + "@" + serverAddress;
	}

	/**
	 * Return whether every connection of the factory is the same native connection, so that
	 * commands sent one after another travel on one server connection unless it reconnects.
	 */
	static boolean sharesOneConnection(RedisConnectionFactory factory) {
		return LETTUCE && Lettuce.sharesOneConnection(factory);
	}

	private static RedisConnection unwrap(RedisConnection connection) {
		RedisConnection target = connection;
		while (target instanceof DecoratedRedisConnection decorated) {
			target = decorated.getDelegate();
		}
		return target;
	}

	/**
	 * The reply of {@code WAIT}, and which connection it came on.
	 */
	record Acknowledgement(long acked, String identity) {
	}

	private static final class Lettuce {

		static @Nullable Object waitFor(LettuceConnection connection, byte[][] args) {
			// Lettuce needs to be told that WAIT answers with an integer.
			return connection.execute("WAIT", new IntegerOutput<>(ByteArrayCodec.INSTANCE), args);
		}

		static boolean sharesOneConnection(RedisConnectionFactory factory) {
			return factory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection();
		}

		static Acknowledgement sendAndIdentify(LettuceConnection connection, int replicas, long timeoutMillis) {
			RedisFuture<Long> acked = connection.getNativeConnection()
				.dispatch(CommandType.WAIT, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
						new CommandArgs<>(ByteArrayCodec.INSTANCE).add(replicas).add(timeoutMillis));
			// Answered after the WAIT, so once this returns the WAIT's reply is in as well.
			String identity = identity(clientInfo(connection));
			try {
				Long count = acked.get(0, TimeUnit.MILLISECONDS);
				return new Acknowledgement((count != null) ? count : 0, identity);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedisSystemException("interrupted during WAIT", ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new RedisSystemException("WAIT failed: " + ex.getMessage(), ex);
			}
		}

		static @Nullable Object clientInfo(LettuceConnection connection) {
			return connection.execute("CLIENT", new ByteArrayOutput<>(ByteArrayCodec.INSTANCE), INFO);
		}

	}

}
