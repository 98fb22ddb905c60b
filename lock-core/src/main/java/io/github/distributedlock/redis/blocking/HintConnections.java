package io.github.distributedlock.redis.blocking;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.github.distributedlock.redis.script.LuaScript;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptRunner;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The connections a template's chained heads wait on: each head that chains holds one for
 * its whole wait, and writes its pairs on it ({@code BLPOP} of its hint key, then its
 * attempt, which Redis runs only once the {@code BLPOP} returns). At most a set number
 * are open at once; a head that finds none free waits by pub/sub. Connections are opened
 * on first use and kept, and one whose pair got no reply is closed: a command still
 * queued behind its blocked {@code BLPOP} then never runs (one that a stalled Redis runs
 * before it reads the close is what a timed-out attempt is). See
 * {@code docs/design/waiting-and-hand-off.md}, "The chained hint". Thread-safe.
 */
public final class HintConnections {

	private static final Log logger = LogFactory.getLog(HintConnections.class);

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			HintConnections.class.getClassLoader());

	private final RedisConnectionFactory factory;

	// The factory's Lettuce client, looked up at the first take: a factory may be built
	// before it is started.
	private volatile @Nullable Object client;

	private final int max;

	private final ArrayDeque<Hint> idle = new ArrayDeque<>();

	private int open;

	private boolean closed;

	// Whether Redis refused a BLPOP or a poke (an ACL without it): no head chains now.
	private volatile boolean refused;

	private HintConnections(RedisConnectionFactory factory, int max) {
		this.factory = factory;
		this.max = max;
	}

	/**
	 * Return the hint connections of a factory, or {@code null} where heads cannot chain:
	 * none allowed, or a factory that is not Lettuce's. A Lettuce client that is neither
	 * a {@code RedisClient} (standalone, Sentinel) nor a {@code RedisClusterClient}, or a
	 * factory not started yet, gives no connection when one is taken.
	 * @param max how many may be open at once, 0 for none
	 */
	public static @Nullable HintConnections of(RedisConnectionFactory factory, int max) {
		if (max <= 0 || !LETTUCE || !(factory instanceof LettuceConnectionFactory)) {
			return null;
		}
		return new HintConnections(factory, max);
	}

	/**
	 * Take a free connection, opening one if fewer than the most are open.
	 * @return the connection, or {@code null} if none is free or it could not be opened
	 */
	@Nullable Hint take() {
		synchronized (this.idle) {
			if (this.closed || this.refused) {
				return null;
			}
			Hint free = this.idle.pollFirst();
			if (free != null) {
				return free;
			}
			if (this.open >= this.max) {
				return null;
			}
			this.open++;
		}
		try {
			Object lettuce = client();
			if (lettuce == null) {
				throw new IllegalStateException("Not a RedisClient nor a RedisClusterClient");
			}
			return new Hint(Lettuce.connect(lettuce), this::refused);
		}
		catch (RuntimeException ex) {
			synchronized (this.idle) {
				this.open--;
			}
			return null;
		}
	}

	/**
	 * Return whether Redis refused a {@code BLPOP}: a head that holds a connection then
	 * polls instead of sending pairs (the attempt behind a refused {@code BLPOP} runs at
	 * once), and no head takes one any more.
	 */
	boolean isRefused() {
		return this.refused;
	}

	/**
	 * Take in the failure of a poke: one the ACL refuses means the pairs would miss every
	 * reservation a release could not push for them, so no head chains from then on.
	 */
	void pokeFailed(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (String.valueOf(cause.getMessage()).contains("NOPERM")) {
				refused(cause);
				return;
			}
		}
	}

	private void refused(Throwable error) {
		if (!this.refused) {
			this.refused = true;
			logger.warn("Redis refused BLPOP or LPUSH, so lock waiters wait by pub/sub instead of chained hints "
					+ "(see docs/security.md for the commands the library needs): " + error.getMessage());
		}
	}

	private @Nullable Object client() {
		Object known = this.client;
		if (known == null) {
			known = Lettuce.client(this.factory);
			this.client = known;
		}
		return known;
	}

	/**
	 * Give back a connection whose pairs all got their replies.
	 */
	void give(Hint hint) {
		synchronized (this.idle) {
			if (!this.closed && hint.isOpen()) {
				this.idle.addFirst(hint);
				return;
			}
			this.open--;
		}
		hint.close();
	}

	/**
	 * Close a connection that may have a pair out without a reply: a command Redis has
	 * not run yet (queued behind a blocked {@code BLPOP}) then never runs.
	 */
	void drop(Hint hint) {
		synchronized (this.idle) {
			this.open--;
		}
		hint.close();
	}

	/**
	 * Close the idle connections; those in use are closed as they are given back.
	 */
	public void close() {
		Hint[] closing;
		synchronized (this.idle) {
			this.closed = true;
			closing = this.idle.toArray(new Hint[0]);
			this.open -= closing.length;
			this.idle.clear();
		}
		for (Hint hint : closing) {
			hint.close();
		}
	}

	/**
	 * One connection a chained head writes its pairs on.
	 */
	static final class Hint {

		private final Object connection;

		private final Consumer<Throwable> refused;

		private Hint(Object connection, Consumer<Throwable> refused) {
			this.connection = connection;
			this.refused = refused;
		}

		/**
		 * Write {@code BLPOP} of the hint key, then the attempt, without waiting between
		 * them.
		 * @param blockMillis how long the {@code BLPOP} may block, at least 1
		 * @return the attempt's reply to come; a {@code NOSCRIPT} failure means it did
		 * not run
		 */
		CompletableFuture<Object> pair(String hintKey, long blockMillis, ScriptCall attempt) {
			return Lettuce.pair(this.connection, hintKey.getBytes(StandardCharsets.UTF_8), blockMillis, attempt,
					this.refused);
		}

		boolean isOpen() {
			return Lettuce.isOpen(this.connection);
		}

		void close() {
			try {
				Lettuce.close(this.connection);
			}
			catch (RuntimeException ex) {
				// Closed already.
			}
		}

	}

	/**
	 * Lettuce's types, loaded only when Lettuce is there.
	 */
	private static final class Lettuce {

		static @Nullable Object client(RedisConnectionFactory factory) {
			AbstractRedisClient client = ((LettuceConnectionFactory) factory).getNativeClient();
			return (client instanceof RedisClient || client instanceof RedisClusterClient) ? client : null;
		}

		static Object connect(Object client) {
			if (client instanceof RedisClusterClient cluster) {
				return cluster.connect(ByteArrayCodec.INSTANCE);
			}
			return ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
		}

		@SuppressWarnings("unchecked")
		static CompletableFuture<Object> pair(Object connection, byte[] hintKey, long blockMillis, ScriptCall attempt,
				Consumer<Throwable> refused) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = commands(connection);
			byte[][] keysAndArgs = ScriptRunner.encode(attempt);
			int keyCount = attempt.keys().size();
			byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, keyCount);
			byte[][] args = Arrays.copyOfRange(keysAndArgs, keyCount, keysAndArgs.length);
			LuaScript<?> script = attempt.script();
			ScriptOutputType type = (script.returnType() == ReturnType.MULTI) ? ScriptOutputType.MULTI
					: ScriptOutputType.INTEGER;
			commands.blpop(Math.max(1, blockMillis) / 1000.0, hintKey).whenComplete((popped, failure) -> {
				if (failure instanceof RedisCommandExecutionException && isRefusal(failure)) {
					refused.accept(failure);
				}
			});
			return commands.<Object>evalsha(new String(script.sha1(), StandardCharsets.US_ASCII), type, keys, args)
				.toCompletableFuture();
		}

		/**
		 * Return whether an error reply says this user may not run the command (an ACL
		 * without it, or a server that renamed it), rather than that the server is busy,
		 * loading, read-only, or found a value of another type under the key.
		 */
		static boolean isRefusal(Throwable failure) {
			String message = String.valueOf(failure.getMessage());
			return message.startsWith("NOPERM") || message.startsWith("ERR unknown command");
		}

		static boolean isOpen(Object connection) {
			return ((StatefulConnection<?, ?>) connection).isOpen();
		}

		static void close(Object connection) {
			((StatefulConnection<?, ?>) connection).closeAsync();
		}

		@SuppressWarnings("unchecked")
		private static RedisClusterAsyncCommands<byte[], byte[]> commands(Object connection) {
			if (connection instanceof io.lettuce.core.cluster.api.StatefulRedisClusterConnection<?, ?> cluster) {
				return (RedisClusterAsyncCommands<byte[], byte[]>) cluster.async();
			}
			return ((io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]>) connection).async();
		}

	}

}
