package io.github.distributedlock.redis.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.script.LockFunctions;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptCall;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Runs a {@link LuaScript} on a connection of its own factory, never one bound to a
 * caller's Redis transaction: as a function of {@link LockFunctions} where the factory is
 * Lettuce's and the server has Functions ({@link FunctionCalls}), otherwise with
 * {@code EVALSHA}, falling back to {@code EVAL} when the server doesn't know the script
 * (after a restart or failover).
 */
public final class ScriptRunner {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ScriptRunner.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final boolean async;

	private final @Nullable FunctionCalls functions;

	// The shared Lettuce connection's asynchronous commands, kept once known, so that a
	// send needs no connection from the factory: it may come from a thread that must not
	// block (a reply's, a timer's), and getting one may (it may connect, or validate).
	// Asked for again once that connection is closed (the factory replaced it).
	private final AtomicReference<@Nullable Object> sharedCommands = new AtomicReference<>();

	public ScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.async = sharesOneConnection(connectionFactory);
		this.functions = LETTUCE ? FunctionCalls.of(connectionFactory) : null;
	}

	/**
	 * Run a script, throwing Spring Data Redis's {@code DataAccessException} on failure.
	 * @param <T> {@code Long} for integer scripts, {@code List} for the others
	 */
	public <T> @Nullable T execute(ScriptCall call) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return execute(connection, call);
		}
	}

	public <T> @Nullable T execute(RedisConnection connection, ScriptCall call) {
		FunctionCalls functions = this.functions;
		if (functions != null && functions.usable() && target(connection) instanceof LettuceConnection lettuce) {
			return functions.call(lettuce, call, () -> evalSha(connection, call));
		}
		return evalSha(connection, call);
	}

	@SuppressWarnings("unchecked")
	private <T> @Nullable T evalSha(RedisConnection connection, ScriptCall call) {
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
	 * Return the command timeout where {@link #sendAsync} sends, or {@code null}.
	 */
	public @Nullable Duration commandTimeout() {
		return this.async
				? ((LettuceConnectionFactory) this.connectionFactory).getClientConfiguration().getCommandTimeout()
				: null;
	}

	/**
	 * Return whether {@link #sendAsync} sends at once: it knows the factory's shared
	 * connection. The first send asks the factory for it, which opens it and waits for
	 * its handshake, up to the connect timeout, however long Redis stalls.
	 */
	public boolean sendsAtOnce() {
		Object commands = this.sharedCommands.get();
		return commands != null && Lettuce.isOpen(commands);
	}

	/**
	 * Send a script on the factory's one shared Lettuce connection without waiting; it
	 * fails with Spring Data Redis's exceptions, as a blocking call would.
	 * @return its reply to come, or {@code null} without one shared Lettuce connection
	 */
	public <T> @Nullable CompletableFuture<T> sendAsync(ScriptCall call) {
		if (!this.async) {
			return null;
		}
		try {
			Object commands = this.sharedCommands.get();
			if (commands == null || !Lettuce.isOpen(commands)) {
				commands = sharedCommands();
				if (commands == null) {
					return null;
				}
				this.sharedCommands.set(commands);
			}
			return Lettuce.send(commands, this.functions, call);
		}
		catch (RuntimeException ex) {
			throw FunctionCalls.translate(ex);
		}
	}

	private @Nullable Object sharedCommands() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return (target(connection) instanceof LettuceConnection lettuce) ? lettuce.getNativeConnection() : null;
		}
	}

	/**
	 * Return the connection a decorated one (such as a transaction-aware proxy) wraps.
	 */
	public static RedisConnection target(RedisConnection connection) {
		RedisConnection target = connection;
		while (target instanceof DecoratedRedisConnection decorated) {
			target = decorated.getDelegate();
		}
		return target;
	}

	/**
	 * Return a call's keys, then its arguments, as the bytes Redis is sent.
	 */
	public static byte[][] encode(ScriptCall call) {
		byte[][] keys = bytes(call.keys());
		byte[][] args = bytes(call.argv());
		byte[][] keysAndArgs = Arrays.copyOf(keys, keys.length + args.length);
		System.arraycopy(args, 0, keysAndArgs, keys.length, args.length);
		return keysAndArgs;
	}

	static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
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
	 * Return whether every connection of the factory is the same native connection, so
	 * that commands sent in turn travel on one server connection unless it reconnects.
	 */
	public static boolean sharesOneConnection(RedisConnectionFactory factory) {
		return LETTUCE && Lettuce.sharesOneConnection(factory);
	}

	// Apart, so that Lettuce classes are only loaded when Lettuce is there.
	private static final class Lettuce {

		static boolean sharesOneConnection(RedisConnectionFactory factory) {
			return factory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection();
		}

		/**
		 * Return whether the connection is still open: closed only when the factory
		 * closed it, never by a reconnect.
		 */
		static boolean isOpen(Object commands) {
			Object connection = (commands instanceof RedisAsyncCommands<?, ?> standalone)
					? standalone.getStatefulConnection()
					: (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
							? cluster.getStatefulConnection() : null;
			// Not isOpen(), which is false while it reconnects.
			return !(connection instanceof RedisChannelHandler<?, ?> handler) || !handler.isClosed();
		}

		@SuppressWarnings("unchecked")
		static <T> CompletableFuture<T> send(Object shared, @Nullable FunctionCalls functions, ScriptCall call) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) shared;
			return (functions != null && functions.usable())
					? functions.send(commands, call, () -> evalAsync(commands, call)) : evalAsync(commands, call);
		}

		static <T> CompletableFuture<T> evalAsync(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall call) {
			LuaScript<?> script = call.script();
			byte[][] keys = bytes(call.keys());
			byte[][] args = bytes(call.argv());
			ScriptOutputType type = (script.returnType() == ReturnType.MULTI) ? ScriptOutputType.MULTI
					: ScriptOutputType.INTEGER;
			CompletableFuture<T> sha = commands
				.<T>evalsha(new String(script.sha1(), StandardCharsets.US_ASCII), type, keys, args)
				.toCompletableFuture();
			return sha
				.exceptionallyCompose(
						(ex) -> isNoScript(ex) ? commands.<T>eval(script.text(), type, keys, args).toCompletableFuture()
								: CompletableFuture.failedFuture(ex))
				.exceptionallyCompose((ex) -> CompletableFuture.failedFuture(FunctionCalls.translate(ex)));
		}

	}

	/**
	 * Translate a failure that a command's future or a client brought, as a plain
	 * blocking call would report it; a {@link LockAccessException} stays as it is.
	 */
	public static LockException failure(LockName name, String operation, Throwable error) {
		return (error instanceof LockAccessException failure) ? failure
				: failure(name, operation, FunctionCalls.translate(error));
	}

	public static LockException failure(LockName name, String operation, DataAccessException ex) {
		if (Thread.currentThread().isInterrupted()) {
			// The client gave up on the command because the thread was interrupted.
			return new LockInterruptedException(name, ex);
		}
		String reason = String.valueOf(ex.getMessage());
		String root = ex.getMostSpecificCause().getMessage();
		if (root != null && !reason.contains(root)) {
			// Script errors say only "Error in execution"; the cause says why (OOM, ...).
			reason = reason + ": " + root;
		}
		return new LockAccessException(name, "Redis failed during " + operation + ": " + reason, ex);
	}

}
