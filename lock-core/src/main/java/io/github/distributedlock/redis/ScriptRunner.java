package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Runs a {@link LuaScript} with {@code EVALSHA}, falling back to {@code EVAL} when the
 * server doesn't know the script (after a restart or failover), on a connection of its own
 * factory: never one bound to a caller's Redis transaction.
 */
final class ScriptRunner {

	private final RedisConnectionFactory connectionFactory;

	ScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Run a script. Throws the Spring Data Redis {@code DataAccessException} of a failure.
	 * @param <T> the reply type: {@code Long} for integer scripts, {@code List} for the others
	 */
	<T> @Nullable T execute(LuaScript script, List<String> keys, Object... args) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return execute(connection, script, keys, args);
		}
	}

	/**
	 * Run a script on the given connection.
	 * @param <T> the reply type: {@code Long} for integer scripts, {@code List} for the others
	 */
	@SuppressWarnings("unchecked")
	<T> @Nullable T execute(RedisConnection connection, LuaScript script, List<String> keys, Object... args) {
		byte[][] keysAndArgs = new byte[keys.size() + args.length][];
		for (int i = 0; i < keys.size(); i++) {
			keysAndArgs[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
		}
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[keys.size() + i] = args[i].toString().getBytes(StandardCharsets.UTF_8);
		}
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

	private static boolean isNoScript(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

}
