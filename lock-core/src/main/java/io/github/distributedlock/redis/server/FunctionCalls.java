package io.github.distributedlock.redis.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.distributedlock.redis.script.LockFunctions;
import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptCall;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs scripts as the functions of {@link LockFunctions} ({@code FCALL}) on a Lettuce
 * connection. "Function not found" (a restart, a new Cluster node, a flush) loads the
 * library, on every master of a Cluster, at most once per {@link #LOAD_INTERVAL_NANOS},
 * while that call runs its script instead. A server that knows no {@code FCALL}, or
 * refuses it or the library ({@code ERR} or {@code NOPERM}), gets {@code EVALSHA} from
 * then on; a load that fails for a while ({@code OOM}, {@code READONLY}, {@code LOADING},
 * {@code BUSY}) is tried again later. Only error replies that mean the function never ran
 * change course, so falling back to the script never runs a call twice. Thread-safe.
 */
final class FunctionCalls {

	private static final String LIBRARY = new String(LockFunctions.library(), StandardCharsets.UTF_8);

	private final Duration timeout;

	/**
	 * How long after a load no other load starts, whatever its outcome: one load per
	 * second per template, not one per call.
	 */
	static final long LOAD_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final AtomicLong nextLoad = new AtomicLong(System.nanoTime() - LOAD_INTERVAL_NANOS);

	private volatile boolean usable = true;

	private FunctionCalls(Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * Return the function calls of a Lettuce factory, or {@code null} for another one.
	 */
	static @Nullable FunctionCalls of(RedisConnectionFactory factory) {
		return (factory instanceof LettuceConnectionFactory lettuce)
				? new FunctionCalls(lettuce.getClientConfiguration().getCommandTimeout()) : null;
	}

	boolean usable() {
		return this.usable;
	}

	/**
	 * Run a script's function and wait for its reply, at most the command timeout; or run
	 * {@code otherwise} if the server cannot run it as a function.
	 */
	@SuppressWarnings("unchecked")
	<T> @Nullable T call(LettuceConnection connection, ScriptCall call, Supplier<@Nullable T> otherwise) {
		try {
			return (T) LettuceFutures.awaitOrCancel(fcall(connection.getNativeConnection(), call),
					this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RedisCommandExecutionException ex) {
			if (!cannotRun(connection.getNativeConnection(), ex)) {
				throw translate(ex);
			}
		}
		catch (RuntimeException ex) {
			throw translate(ex);
		}
		return otherwise.get();
	}

	/**
	 * Send a script's function without waiting for its reply; or send {@code otherwise}
	 * if the server cannot run it as a function.
	 */
	<T> CompletableFuture<T> send(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall call,
			Supplier<CompletableFuture<T>> otherwise) {
		CompletableFuture<T> reply = FunctionCalls.<T>fcall(commands, call).toCompletableFuture();
		return reply.exceptionallyCompose((ex) -> cannotRun(commands, unwrap(ex)) ? otherwise.get()
				: CompletableFuture.failedFuture(translate(ex)));
	}

	private static <T> RedisFuture<T> fcall(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall call) {
		LuaScript<?> script = call.script();
		ScriptOutputType type = (script.returnType() == ReturnType.MULTI) ? ScriptOutputType.MULTI
				: ScriptOutputType.INTEGER;
		return commands.fcall(LockFunctions.functionName(script), type, ScriptRunner.bytes(call.keys()),
				ScriptRunner.bytes(call.argv()));
	}

	/**
	 * Return whether an error reply means that the function did not run and its script
	 * should, loading the library or giving up on functions as needed.
	 */
	private boolean cannotRun(RedisClusterAsyncCommands<byte[], byte[]> commands, Throwable failure) {
		if (!(failure instanceof RedisCommandExecutionException)) {
			return false;
		}
		String message = String.valueOf(failure.getMessage());
		if (message.startsWith("ERR Function not found")) {
			load(commands);
			return true;
		}
		if (refuses(message, "fcall")) {
			this.usable = false;
			return true;
		}
		return false;
	}

	private static boolean refuses(String message, String command) {
		String lower = message.toLowerCase(Locale.ROOT);
		return (lower.startsWith("err unknown command") || lower.startsWith("noperm")) && lower.contains(command);
	}

	/**
	 * Load the library unless a load started less than {@link #LOAD_INTERVAL_NANOS} ago.
	 * An {@code ERR} or {@code NOPERM} reply ends the use of functions: the server would
	 * give it again.
	 */
	private void load(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		long now = System.nanoTime();
		long next = this.nextLoad.get();
		if (now - next < 0 || !this.nextLoad.compareAndSet(next, now + LOAD_INTERVAL_NANOS)) {
			return;
		}
		CompletionStage<?> loaded;
		try {
			loaded = (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster)
					? cluster.upstream().commands().functionLoad(LIBRARY, true) : commands.functionLoad(LIBRARY, true);
		}
		catch (RuntimeException ex) {
			return;
		}
		loaded.whenComplete((done, failure) -> {
			if (failure != null && unwrap(failure) instanceof RedisCommandExecutionException refused) {
				String message = String.valueOf(refused.getMessage());
				if (message.startsWith("ERR") || message.startsWith("NOPERM")) {
					this.usable = false;
				}
			}
		});
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/**
	 * Translate a Lettuce failure into Spring Data Redis's exceptions.
	 */
	static DataAccessException translate(Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof DataAccessException spring) {
			return spring;
		}
		String message = String.valueOf(cause.getMessage());
		if (cause instanceof RedisCommandTimeoutException) {
			return new QueryTimeoutException(message, cause);
		}
		if (cause instanceof RedisConnectionException) {
			return new RedisConnectionFailureException(message, cause);
		}
		return new RedisSystemException(message, cause);
	}

}
