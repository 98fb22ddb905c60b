package io.github.distributedlock.redis.server;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.ScriptCall;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ByteArrayOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;

/**
 * The replica check's count on Spring Data Redis: Redis {@code WAIT}, on the factory's
 * blocking side, on threads of its own (an interrupt must not stop a check and leave the
 * hold unchecked: Lettuce drops a command on an interrupted thread).
 * <p>
 * {@code WAIT} counts only the writes of its own server connection, and a client that
 * reconnects may send it on a new connection, even to a new master, where it confirms
 * nothing. So {@code CLIENT INFO} identifies the connection after the {@code WAIT}: one
 * already seen before the hold was written carried the write. Otherwise the hold's lease
 * is written again on one connection (never shorter; {@code lengthen_lease} always
 * writes, as Redis 7.2 and later count only what the connection itself wrote) and waited
 * for there. Thread-safe.
 */
public final class ReplicaAcknowledgements implements ReplicaCount, AutoCloseable {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ReplicaAcknowledgements.class.getClassLoader());

	private static final byte[] INFO = "INFO".getBytes(StandardCharsets.US_ASCII);

	private final StringRedisTemplate redis;

	private final ScriptRunner scripts;

	private final int replicas;

	private final long timeoutMillis;

	// Whether the holds were written on the connection the check uses, where a WAIT alone
	// covers them once that connection is known.
	private final boolean writtenHere;

	private final ExecutorService checks = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "distributed-lock-replica-check");
		thread.setDaemon(true);
		return thread;
	});

	/** The server connection last seen by a check, and when it was first seen. */
	private final AtomicReference<@Nullable SeenConnection> lastConnection = new AtomicReference<>();

	/**
	 * @param replicas how many replicas {@code WAIT} waits for
	 * @param timeoutMillis how long {@code WAIT} waits for them
	 * @param writtenHere whether the template writes its holds through the factory's
	 * blocking side, as the check does: not the reactive template, whose connection is
	 * another, so that each of its checks writes the lease again before its {@code WAIT}
	 */
	public ReplicaAcknowledgements(RedisConnectionFactory connectionFactory, int replicas, long timeoutMillis,
			boolean writtenHere) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.scripts = new ScriptRunner(connectionFactory);
		this.replicas = replicas;
		this.timeoutMillis = timeoutMillis;
		this.writtenHere = writtenHere && ScriptRunner.sharesOneConnection(connectionFactory);
	}

	@Override
	public CompletableFuture<Long> acknowledged(Grant hold) {
		try {
			return CompletableFuture.supplyAsync(() -> count(hold), this.checks);
		}
		catch (RejectedExecutionException ex) {
			return CompletableFuture
				.failedFuture(new LockAccessException(hold.spec().name(), "the lock service is shut down", null));
		}
	}

	/**
	 * Stop the check threads; a check under way ends with its commands.
	 */
	@Override
	public void close() {
		this.checks.shutdown();
	}

	/**
	 * Return the number of replicas that acknowledged the hold, or -1 if the server no
	 * longer has it.
	 */
	private long count(Grant hold) {
		long writtenNanos = hold.sentNanos();
		try {
			SeenConnection last = this.lastConnection.get();
			if (this.writtenHere && last != null && last.firstSeenNanos() - writtenNanos < 0) {
				Acknowledgement ack = this.redis
					.execute((RedisCallback<Acknowledgement>) (connection) -> ReplicaAcknowledgements
						.sendAndIdentify(connection, this.replicas, this.timeoutMillis), true);
				if (ack != null && seen(ack.identity()) - writtenNanos < 0) {
					return ack.acked();
				}
			}
			for (int attempt = 0; attempt < 3; attempt++) {
				Rewrite ack = this.redis.execute((RedisCallback<Rewrite>) (connection) -> {
					String before = identity(connection);
					// A write on this connection for the WAIT to cover.
					if (extendOn(connection, hold) < 0) {
						return new Rewrite(before, -1, before);
					}
					Acknowledgement after = sendAndIdentify(connection, this.replicas, this.timeoutMillis);
					return new Rewrite(before, after.acked(), after.identity());
				}, true);
				if (ack == null) {
					return 0;
				}
				seen(ack.after());
				if (ack.acked() < 0 || ack.before().equals(ack.after())) {
					return ack.acked();
				}
			}
			// The connection kept changing under the check.
			return 0;
		}
		catch (DataAccessException ex) {
			throw ScriptRunner.failure(hold.spec().name(), "WAIT", ex);
		}
	}

	/**
	 * Write the hold's lease again on the given connection, for the {@code WAIT} to
	 * cover; Redis errors are not translated.
	 * @return 1 if extended, -1 if the lock was gone, -2 if someone else held it
	 */
	private long extendOn(RedisConnection connection, Grant hold) {
		LockSpec spec = hold.spec();
		ScriptCall call = spec.kind().extend(spec, hold.owner(), hold.token(), hold.hold(), spec.leaseMillis());
		Long result = this.scripts.execute(connection, call);
		return (result != null) ? result : -1;
	}

	/**
	 * Record a server connection identity.
	 * @return the {@link System#nanoTime()} at which it was first seen
	 */
	private long seen(String identity) {
		SeenConnection last = this.lastConnection.get();
		if (last != null && last.identity().equals(identity)) {
			return last.firstSeenNanos();
		}
		SeenConnection now = new SeenConnection(identity, System.nanoTime());
		this.lastConnection.set(now);
		return now.firstSeenNanos();
	}

	private record SeenConnection(String identity, long firstSeenNanos) {
	}

	private record Rewrite(String before, long acked, String after) {
	}

	/**
	 * Send {@code WAIT} and identify the connection that ran it, in one round trip where
	 * the client allows it (Redis answers the second command only after the first).
	 * @return how many replicas acknowledged every write sent so far on this connection,
	 * and the connection's {@link #identity identity}
	 */
	static Acknowledgement sendAndIdentify(RedisConnection connection, int replicas, long timeoutMillis) {
		RedisConnection target = ScriptRunner.target(connection);
		if (LETTUCE && target instanceof LettuceConnection) {
			return Lettuce.sendAndIdentify((LettuceConnection) target, replicas, timeoutMillis);
		}
		Object acked = connection.execute("WAIT", Integer.toString(replicas).getBytes(StandardCharsets.US_ASCII),
				Long.toString(timeoutMillis).getBytes(StandardCharsets.US_ASCII));
		return new Acknowledgement((acked instanceof Number number) ? number.longValue() : 0, identity(connection));
	}

	/**
	 * Identify the server-side connection by its client id (unique per running server)
	 * and the server address it reached, so that any reconnect yields a new identity.
	 */
	static String identity(RedisConnection connection) {
		RedisConnection target = ScriptRunner.target(connection);
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

	/** The reply of {@code WAIT}, and which connection it came on. */
	record Acknowledgement(long acked, String identity) {
	}

	// Apart, so that Lettuce classes are only loaded when Lettuce is there.
	private static final class Lettuce {

		static Acknowledgement sendAndIdentify(LettuceConnection connection, int replicas, long timeoutMillis) {
			RedisFuture<Long> acked = connection.getNativeConnection()
				.dispatch(CommandType.WAIT, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
						new CommandArgs<>(ByteArrayCodec.INSTANCE).add(replicas).add(timeoutMillis));
			// Answered after the WAIT, so once this returns the WAIT's reply is in too.
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
