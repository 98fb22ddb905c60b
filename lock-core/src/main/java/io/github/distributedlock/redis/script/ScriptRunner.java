package io.github.distributedlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Runs a {@link LuaScript} with {@code EVALSHA}, falling back to {@code EVAL} when the
 * server doesn't know the script (after a restart or failover), on a connection of its
 * own factory: never one bound to a caller's Redis transaction.
 */
public final class ScriptRunner {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ScriptRunner.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final boolean async;

	public ScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.async = sharesOneConnection(connectionFactory);
	}

	/**
	 * Run a script. Throws the Spring Data Redis {@code DataAccessException} of a
	 * failure.
	 * @param <T> the reply type: {@code Long} for integer scripts, {@code List} for the
	 * others
	 */
	public <T> @Nullable T execute(ScriptCall call) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return execute(connection, call);
		}
	}

	/**
	 * Run a script on the given connection.
	 * @param <T> the reply type: {@code Long} for integer scripts, {@code List} for the
	 * others
	 */
	@SuppressWarnings("unchecked")
	public <T> @Nullable T execute(RedisConnection connection, ScriptCall call) {
		LuaScript<?> script = call.script();
		int keyCount = call.keys().size();
		byte[][] keysAndArgs = encode(call);
		try {
			return (T) connection.scriptingCommands()
				.evalSha(script.sha1(), script.returnType(), keyCount, keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return (T) connection.scriptingCommands().eval(script.text(), script.returnType(), keyCount, keysAndArgs);
		}
	}

	/**
	 * Run an integer script without waiting for its reply, where the factory shares one
	 * Lettuce connection; otherwise run it now. The future fails with the client's
	 * exception.
	 */
	public CompletableFuture<Long> executeAsync(ScriptCall call) {
		CompletableFuture<Long> sent = sendAsync(call);
		if (sent != null) {
			return sent;
		}
		try {
			Long result = execute(call);
			return CompletableFuture.completedFuture((result != null) ? result : -1L);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Return the client's command timeout, where the factory shares one Lettuce
	 * connection (the only case {@link #sendAsync} sends), or {@code null}.
	 */
	public @Nullable Duration commandTimeout() {
		return this.async
				? ((LettuceConnectionFactory) this.connectionFactory).getClientConfiguration().getCommandTimeout()
				: null;
	}

	/**
	 * Send a script on the factory's one shared Lettuce connection, without waiting for
	 * its reply. The future fails with the client's own exception.
	 * @return its reply to come, or {@code null} if the factory does not share one
	 * Lettuce connection
	 */
	public <T> @Nullable CompletableFuture<T> sendAsync(ScriptCall call) {
		if (!this.async) {
			return null;
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			RedisConnection target = connection;
			while (target instanceof DecoratedRedisConnection decorated) {
				target = decorated.getDelegate();
			}
			if (target instanceof LettuceConnection lettuce) {
				return Lettuce.evalAsync(lettuce, call.script(), call.keys().size(), encode(call));
			}
		}
		return null;
	}

	/**
	 * Return a call's keys, then its arguments, as the bytes Redis is sent.
	 */
	public static byte[][] encode(ScriptCall call) {
		List<String> keys = call.keys();
		List<String> args = call.argv();
		byte[][] keysAndArgs = new byte[keys.size() + args.size()][];
		for (int i = 0; i < keys.size(); i++) {
			keysAndArgs[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
		}
		for (int i = 0; i < args.size(); i++) {
			keysAndArgs[keys.size() + i] = args.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	public static boolean isNoScript(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Kept apart so that Lettuce classes are only loaded when Lettuce is there.
	 */
	private static final class Lettuce {

		static <T> CompletableFuture<T> evalAsync(LettuceConnection connection, LuaScript<?> script, int keyCount,
				byte[][] keysAndArgs) {
			byte[][] keys = java.util.Arrays.copyOfRange(keysAndArgs, 0, keyCount);
			byte[][] args = java.util.Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length);
			RedisClusterAsyncCommands<byte[], byte[]> commands = connection.getNativeConnection();
			ScriptOutputType type = (script.returnType() == ReturnType.MULTI) ? ScriptOutputType.MULTI
					: ScriptOutputType.INTEGER;
			CompletableFuture<T> sha = commands
				.<T>evalsha(new String(script.sha1(), StandardCharsets.US_ASCII), type, keys, args)
				.toCompletableFuture();
			return sha.exceptionallyCompose(
					(ex) -> isNoScript(ex) ? commands.<T>eval(script.text(), type, keys, args).toCompletableFuture()
							: CompletableFuture.failedFuture(ex));
		}

	}

	/**
	 * Return whether every connection of the factory is the same native connection, so
	 * that commands sent one after another travel on one server connection unless it
	 * reconnects.
	 */
	public static boolean sharesOneConnection(RedisConnectionFactory factory) {
		return LETTUCE && LettuceFactory.sharesOneConnection(factory);
	}

	/**
	 * Lettuce's types, loaded only when Lettuce is there.
	 */
	private static final class LettuceFactory {

		public static boolean sharesOneConnection(RedisConnectionFactory factory) {
			return factory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection();
		}

	}

}
