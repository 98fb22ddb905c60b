package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

/**
 * Runs a {@link LuaScript} with {@code EVALSHA}, falling back to {@code EVAL} when the
 * server doesn't know the script (after a restart or failover), on a connection of its
 * own factory: never one bound to a caller's Redis transaction. A call that passes
 * another number of keys or arguments than the script declares fails before it reaches
 * Redis.
 */
final class ScriptRunner {

	private final RedisConnectionFactory connectionFactory;

	private final boolean async;

	ScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.async = ReplicaWait.sharesOneConnection(connectionFactory);
	}

	/**
	 * Run a script. Throws the Spring Data Redis {@code DataAccessException} of a
	 * failure.
	 * @param <T> the reply type: {@code Long} for integer scripts, {@code List} for the
	 * others
	 */
	<T> @Nullable T execute(LuaScript script, List<String> keys, Object... args) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return execute(connection, script, keys, args);
		}
	}

	/**
	 * Run a script on the given connection.
	 * @param <T> the reply type: {@code Long} for integer scripts, {@code List} for the
	 * others
	 */
	@SuppressWarnings("unchecked")
	<T> @Nullable T execute(RedisConnection connection, LuaScript script, List<String> keys, Object... args) {
		script.checkArity(keys.size(), args.length);
		byte[][] keysAndArgs = encode(keys, args);
		try {
			return (T) connection.scriptingCommands()
				.evalSha(script.sha1(), script.returnType(), keys.size(), keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return (T) connection.scriptingCommands()
				.eval(script.text(), script.returnType(), keys.size(), keysAndArgs);
		}
	}

	/**
	 * Run an integer script without waiting for its reply, where the factory shares one
	 * Lettuce connection; otherwise run it now. The future fails with the client's
	 * exception.
	 */
	CompletableFuture<Long> executeAsync(LuaScript script, List<String> keys, Object... args) {
		script.checkArity(keys.size(), args.length);
		if (this.async) {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				RedisConnection target = connection;
				while (target instanceof DecoratedRedisConnection decorated) {
					target = decorated.getDelegate();
				}
				if (target instanceof LettuceConnection lettuce) {
					return Lettuce.evalAsync(lettuce, script, keys.size(), encode(keys, args));
				}
			}
		}
		try {
			Long result = execute(script, keys, args);
			return CompletableFuture.completedFuture((result != null) ? result : -1L);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	static byte[][] encode(List<String> keys, Object[] args) {
		byte[][] keysAndArgs = new byte[keys.size() + args.length][];
		for (int i = 0; i < keys.size(); i++) {
			keysAndArgs[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
		}
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[keys.size() + i] = args[i].toString().getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	static boolean isNoScript(Throwable failure) {
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

		static CompletableFuture<Long> evalAsync(LettuceConnection connection, LuaScript script, int keyCount,
				byte[][] keysAndArgs) {
			byte[][] keys = java.util.Arrays.copyOfRange(keysAndArgs, 0, keyCount);
			byte[][] args = java.util.Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length);
			RedisClusterAsyncCommands<byte[], byte[]> commands = connection.getNativeConnection();
			CompletableFuture<Long> sha = commands
				.<Long>evalsha(new String(script.sha1(), StandardCharsets.US_ASCII), ScriptOutputType.INTEGER, keys,
						args)
				.toCompletableFuture();
			return sha.exceptionallyCompose((ex) -> isNoScript(ex)
					? commands.<Long>eval(script.text(), ScriptOutputType.INTEGER, keys, args).toCompletableFuture()
					: CompletableFuture.failedFuture(ex));
		}

	}

}
