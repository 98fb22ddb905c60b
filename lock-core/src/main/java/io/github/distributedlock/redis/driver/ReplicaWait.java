package io.github.distributedlock.redis.driver;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;
import io.github.distributedlock.redis.script.ScriptRunner;
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
 * Makes sure a hold just written reached enough replicas (Redis {@code WAIT}), so that a
 * failover now would not hand the lock to someone else; otherwise releases it and fails
 * the acquisition. Both templates use it: the check runs on threads of its own, and each
 * template waits for its end in its own way, within the call's bound.
 * <p>
 * {@code WAIT} counts only the writes of its own server connection, and a client that
 * reconnects may send it on a new connection, even to a new master, where it confirms
 * nothing. So {@code CLIENT INFO} identifies the connection after the {@code WAIT}: one
 * already seen before the hold was written carried the write. Otherwise the hold's lease
 * is written again on one connection (never shorter; {@code lengthen_lease} always
 * writes, as Redis 7.2 and later count only what the connection itself wrote) and waited
 * for there.
 */
public final class ReplicaWait implements AutoCloseable {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ReplicaWait.class.getClassLoader());

	private static final byte[] INFO = "INFO".getBytes(StandardCharsets.US_ASCII);

	private final StringRedisTemplate redis;

	private final ScriptRunner scripts;

	private final boolean handOff;

	private final int replicas;

	private final long timeoutMillis;

	// Whether the holds were written on the connection the check uses, where a WAIT alone
	// covers them once that connection is known.
	private final boolean writtenHere;

	private final HoldRegistry registry;

	private final ExecutorService checks = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "distributed-lock-replica-check");
		thread.setDaemon(true);
		return thread;
	});

	/** The server connection last seen by a check, and when it was first seen. */
	private final AtomicReference<@Nullable SeenConnection> lastConnection = new AtomicReference<>();

	/**
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 * @param replicas how many replicas must acknowledge each hold
	 * @param timeoutMillis how long {@code WAIT} waits for them
	 * @param registry the template's holds, told of the lease a check may write again
	 * @param writtenHere whether the template writes its holds through the factory's
	 * blocking side, as the check does: not the reactive template, whose connection is
	 * another, so that each of its checks writes the lease again before its {@code WAIT}
	 */
	public ReplicaWait(RedisConnectionFactory connectionFactory, boolean handOff, int replicas, long timeoutMillis,
			HoldRegistry registry, boolean writtenHere) {
		this.registry = registry;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.scripts = new ScriptRunner(connectionFactory);
		this.handOff = handOff;
		this.replicas = replicas;
		this.timeoutMillis = timeoutMillis;
		this.writtenHere = writtenHere && ScriptRunner.sharesOneConnection(connectionFactory);
	}

	/**
	 * Wait until enough replicas have a hold that was just written; otherwise release it.
	 * @param hold the hold; its {@code sentNanos} was read before its script was sent
	 * @param call the bound of the call: its wait time plus one command timeout
	 * @throws LockAccessException as {@link #confirmLater} fails, or caused by a timeout
	 * if the call's bound came first
	 */
	public void confirm(Grant hold, Deadline call) {
		CompletableFuture<Boolean> confirmed = confirmLater(hold, call);
		await(confirmed, hold, call, (ex) -> gaveUp(hold, confirmed, ex));
	}

	/**
	 * Wait until enough replicas have every hold of a multi-lock ({@link #confirmAll});
	 * otherwise every one is released.
	 * @throws LockAccessException as {@link #confirmAll} fails, or caused by a timeout if
	 * the call's bound came first
	 */
	public void confirmEvery(List<Grant> holds, Deadline call) {
		CompletableFuture<Boolean> confirmed = confirmAll(holds, call);
		await(confirmed, holds.get(0), call, (ex) -> gaveUpAll(holds, confirmed, ex));
	}

	private static void await(CompletableFuture<Boolean> confirmed, Grant hold, Deadline call,
			Function<TimeoutException, LockAccessException> gaveUp) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					confirmed.get(Math.max(0, call.remainingNanos()), TimeUnit.NANOSECONDS);
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		catch (TimeoutException ex) {
			throw gaveUp.apply(ex);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new LockAccessException(hold.spec().name(), "the replica check failed", ex.getCause());
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Check the holds of a multi-lock one after another, as {@link #confirmLater} does:
	 * all or none. If one is not confirmed, every one is released (the one refused again,
	 * which finds it gone), and a re-entry among them leaves its lease behind.
	 * @return completed once every hold is confirmed, failed as the first that is not
	 */
	public CompletableFuture<Boolean> confirmAll(List<Grant> holds, Deadline call) {
		CompletableFuture<Boolean> all = CompletableFuture.completedFuture(Boolean.TRUE);
		for (Grant hold : holds) {
			all = all.thenCompose((confirmed) -> confirmLater(hold, call));
		}
		return all.whenComplete((confirmed, error) -> {
			if (error != null) {
				releaseAll(holds);
			}
		});
	}

	/**
	 * Say that a caller stopped waiting for a multi-lock's check before the call's bound
	 * came: every hold is released once the check ends.
	 */
	public LockAccessException gaveUpAll(List<Grant> holds, CompletableFuture<Boolean> confirmed, Throwable cause) {
		abandonAll(holds, confirmed);
		return new LockAccessException(holds.get(0).spec().name(), "acquired, but its replication was not confirmed "
				+ "within the wait time plus one command timeout; it is released once the check ends", cause);
	}

	/**
	 * Release a multi-lock's holds nobody waits for once their check ends; a refused
	 * check released them already.
	 */
	public void abandonAll(List<Grant> holds, CompletableFuture<Boolean> confirmed) {
		confirmed.whenComplete((ignored, error) -> {
			if (error == null) {
				releaseAll(holds);
			}
		});
	}

	private void releaseAll(List<Grant> holds) {
		for (Grant hold : holds) {
			this.registry.leaseLeftBehind(hold);
			release(hold);
		}
	}

	/**
	 * Check, on a thread of the check's own, that enough replicas have a hold that was
	 * just written; the hold is won, and an interrupt must not stop the check (Lettuce
	 * drops a command on an interrupted thread) and leave the hold unchecked.
	 * @param hold the hold; its {@code sentNanos} was read before its script was sent
	 * @param call the bound of the call: its wait time plus one command timeout, which
	 * the release of a refused hold is waited for within
	 * @return completed once enough replicas acknowledged the hold; failed with a
	 * {@link LockAccessException} without a cause once a refused hold's release ran (too
	 * few replicas acknowledged it, or the server no longer had it), or caused by the
	 * Redis failure if the check itself failed (its write may have lost its reply)
	 */
	public CompletableFuture<Boolean> confirmLater(Grant hold, Deadline call) {
		HoldRegistry registry = this.registry;
		String owner = hold.owner();
		String lockKey = hold.spec().lockKey();
		// The check writes the lease again, and a refused re-entry leaves it behind.
		registry.sending(owner, lockKey);
		CompletableFuture<Long> check;
		try {
			check = CompletableFuture.supplyAsync(() -> await(hold), this.checks);
		}
		catch (RejectedExecutionException ex) {
			check = CompletableFuture
				.failedFuture(new LockAccessException(hold.spec().name(), "the lock service is shut down", null));
		}
		return check.handle((acked, error) -> checked(hold, call, acked, error))
			.thenCompose((done) -> done)
			.whenComplete((ignored, error) -> {
				if (error == null) {
					registry.replied(owner, lockKey, -1);
				}
				else if (unwrap(error) instanceof LockAccessException refusal && refusal.getCause() == null) {
					// A refusal is a reply (no cause); a failed check may have lost one.
					registry.replied(owner, lockKey, hold.spec().leaseMillis());
				}
				else {
					registry.failed(owner, lockKey);
				}
			});
	}

	/**
	 * Say that a caller stopped waiting for a check before the call's bound came: the
	 * hold is released once the check ends.
	 */
	public LockAccessException gaveUp(Grant hold, CompletableFuture<Boolean> confirmed, Throwable cause) {
		abandon(hold, confirmed);
		return new LockAccessException(hold.spec().name(), "acquired, but its replication was not confirmed within "
				+ "the wait time plus one command timeout; it is released once the check ends", cause);
	}

	/**
	 * Release a hold nobody waits for once its check ends, so that no lease written again
	 * by the check outlives the release; a refused one is released already.
	 */
	public void abandon(Grant hold, CompletableFuture<Boolean> confirmed) {
		confirmed.whenComplete((ignored, error) -> {
			if (error == null) {
				this.registry.leaseLeftBehind(hold);
				release(hold);
			}
		});
	}

	private CompletableFuture<Boolean> checked(Grant hold, Deadline call, @Nullable Long acked,
			@Nullable Throwable error) {
		LockName name = hold.spec().name();
		if (error != null) {
			release(hold);
			Throwable cause = unwrap(error);
			return CompletableFuture.failedFuture((cause instanceof RuntimeException) ? cause
					: new LockAccessException(name, "the replica check failed", cause));
		}
		long count = (acked != null) ? acked : 0;
		if (count >= this.replicas) {
			return CompletableFuture.completedFuture(Boolean.TRUE);
		}
		// Waited for, so that the caller that hears of the refusal finds the lock free.
		return release(hold).thenApply((ran) -> ran ? "released it" : "its release failed, so its lease ends it")
			.completeOnTimeout("its release was sent but not yet answered", Math.max(0, call.remainingNanos()),
					TimeUnit.NANOSECONDS)
			.thenCompose((release) -> CompletableFuture.failedFuture(refusal(name, count, release)));
	}

	private LockAccessException refusal(LockName name, long acked, String release) {
		if (acked < 0) {
			return new LockAccessException(name,
					"acquired, but the server no longer had it when its "
							+ "replication was checked (the connection moved to another server, as in a failover)",
					null);
		}
		return new LockAccessException(name,
				"acquired, but only " + acked + " of " + this.replicas + " replicas acknowledged it within "
						+ this.timeoutMillis + " ms; " + release
						+ ", since a failover now could give it to someone else",
				null);
	}

	/**
	 * Release a hold, once, without waiting.
	 * @return completed with {@code true} once Redis ran the release, with {@code false}
	 * once it failed (the lease ends the hold)
	 */
	private CompletableFuture<Boolean> release(Grant hold) {
		LockSpec spec = hold.spec();
		return this.scripts
			.executeAsync(spec.kind().release(spec, hold.owner(), hold.token(), hold.hold(), this.handOff, 0));
	}

	private static Throwable unwrap(Throwable error) {
		return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
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
	private long await(Grant hold) {
		long writtenNanos = hold.sentNanos();
		try {
			SeenConnection last = this.lastConnection.get();
			if (this.writtenHere && last != null && last.firstSeenNanos() - writtenNanos < 0) {
				Acknowledgement ack = this.redis.execute((RedisCallback<Acknowledgement>) (connection) -> ReplicaWait
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
			throw ScriptReplies.failure(hold.spec().name(), "WAIT", ex);
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
