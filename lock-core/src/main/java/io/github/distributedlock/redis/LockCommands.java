package io.github.distributedlock.redis;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.distributedlock.redis.LockScripts.ACQUIRE;
import static io.github.distributedlock.redis.LockScripts.ACQUIRE_ALL;
import static io.github.distributedlock.redis.LockScripts.ACQUIRE_FAIR;
import static io.github.distributedlock.redis.LockScripts.ACQUIRE_PERMIT;
import static io.github.distributedlock.redis.LockScripts.ACQUIRE_READ;
import static io.github.distributedlock.redis.LockScripts.EXTEND;
import static io.github.distributedlock.redis.LockScripts.EXTEND_PERMIT;
import static io.github.distributedlock.redis.LockScripts.EXTEND_READ;
import static io.github.distributedlock.redis.LockScripts.FORCE_RELEASE;
import static io.github.distributedlock.redis.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.LockScripts.LEAVE_FAIR;
import static io.github.distributedlock.redis.LockScripts.READ_HOLD;
import static io.github.distributedlock.redis.LockScripts.RELEASE;
import static io.github.distributedlock.redis.LockScripts.RELEASE_FAIR;
import static io.github.distributedlock.redis.LockScripts.RELEASE_PERMIT;
import static io.github.distributedlock.redis.LockScripts.RELEASE_READ;
import static io.github.distributedlock.redis.LockScripts.RENEW;

/**
 * Runs the lock scripts and the few plain commands, translating Redis errors into
 * {@link LockAccessException}s that name the lock.
 */
final class LockCommands {

	private final StringRedisTemplate redis;

	private final ScriptRunner scripts;

	private final String fenceIdleMillis;

	private final boolean sharedConnection;

	private final String handOff;

	/** The server connection last seen by a replica check, and when it was first seen. */
	private final AtomicReference<@Nullable SeenConnection> lastConnection = new AtomicReference<>();

	/**
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 */
	LockCommands(StringRedisTemplate redis, long fenceIdleMillis, boolean handOff) {
		this.redis = redis;
		this.scripts = new ScriptRunner(redis.getRequiredConnectionFactory());
		this.fenceIdleMillis = Long.toString(fenceIdleMillis);
		this.handOff = handOff ? "1" : "0";
		this.sharedConnection = ReplicaWait.sharesOneConnection(redis.getRequiredConnectionFactory());
	}

	/**
	 * Run the acquire script of the spec's kind once.
	 * @param remainingWaitMillis how long the caller will keep waiting (-1 indefinitely), so
	 * that a writer announces itself to readers only for that long
	 * @param mayHaveIntent whether an earlier attempt was held back by readers, and so may
	 * have left a writer intent to clean up
	 * @param holdsIt whether the caller already holds the lock, so that finding it ours is a
	 * re-entry rather than a hold left by a lost reply
	 * @param handOff the caller's request, which keeps its place in the lock's line, or
	 * {@code null} for none (only for locks and read locks that are not fair)
	 */
	AcquireResult acquire(LockSpec spec, String owner, long remainingWaitMillis, boolean mayHaveIntent,
			boolean holdsIt, @Nullable HandOffRequest handOff) {
		List<?> reply;
		String lease = Long.toString(spec.leaseMillis());
		try {
			reply = switch (spec.kind()) {
				case EXCLUSIVE -> spec.fair() ? this.scripts.execute(ACQUIRE_FAIR, ACQUIRE_FAIR.keys(spec),
						owner, lease, spec.reentrant() ? "1" : "0", this.fenceIdleMillis,
						Long.toString(spec.fairWaiterTimeoutMillis()), (remainingWaitMillis != 0) ? "1" : "0")
						: this.scripts.execute(ACQUIRE, ACQUIRE.keys(spec),
						owner, lease, spec.reentrant() ? "1" : "0", this.fenceIdleMillis,
						Long.toString(remainingWaitMillis), mayHaveIntent ? "1" : "0", holdsIt ? "1" : "0",
						(handOff != null) ? handOff.member() : "", HandOffRequest.VALIDITY_MILLIS);
				case READ -> this.scripts.execute(ACQUIRE_READ, ACQUIRE_READ.keys(spec),
						owner, lease, spec.reentrant() ? "1" : "0", this.fenceIdleMillis,
						(handOff != null) ? handOff.member() : "", HandOffRequest.VALIDITY_MILLIS);
				case PERMIT -> this.scripts.execute(ACQUIRE_PERMIT, ACQUIRE_PERMIT.keys(spec), owner,
						lease, Integer.toString(spec.permits()), this.fenceIdleMillis);
			};
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "acquire", ex);
		}
		if (reply == null || reply.size() < 2) {
			throw new LockAccessException(spec.name(), "unexpected reply from the acquire script: " + reply, null);
		}
		int status = ((Number) reply.get(0)).intValue();
		long token = ((Number) reply.get(1)).longValue();
		long ttl = (reply.size() > 2) ? ((Number) reply.get(2)).longValue() : spec.leaseMillis();
		int rank = (reply.size() > 3) ? ((Number) reply.get(3)).intValue() : -1;
		return new AcquireResult(status, token, ttl, rank);
	}

	/**
	 * Take several locks in one script, all or nothing.
	 */
	MultiAcquireResult acquireAll(List<LockSpec> specs, String owner, boolean reentrant,
			@Nullable HandOffRequest handOff) {
		List<String> keys = ACQUIRE_ALL.keys(specs);
		Object[] args = new Object[5 + specs.size()];
		args[0] = owner;
		args[1] = reentrant ? "1" : "0";
		args[2] = this.fenceIdleMillis;
		args[3] = (handOff != null) ? handOff.member() : "";
		args[4] = HandOffRequest.VALIDITY_MILLIS;
		for (int i = 0; i < specs.size(); i++) {
			args[5 + i] = Long.toString(specs.get(i).leaseMillis());
		}
		List<?> reply;
		try {
			reply = this.scripts.execute(ACQUIRE_ALL, keys, args);
		}
		catch (DataAccessException ex) {
			throw failure(specs.get(0).name(), "acquire", ex);
		}
		if (reply == null || reply.isEmpty()) {
			throw new LockAccessException(specs.get(0).name(), "unexpected reply from the multi-lock script: " + reply,
					null);
		}
		int status = ((Number) reply.get(0)).intValue();
		if (status == 1) {
			long[] tokens = new long[specs.size()];
			for (int i = 0; i < tokens.length; i++) {
				tokens[i] = ((Number) reply.get(i + 1)).longValue();
			}
			return new MultiAcquireResult(1, -1, tokens, -1);
		}
		return new MultiAcquireResult(status, ((Number) reply.get(1)).intValue() - 1, new long[0],
				((Number) reply.get(3)).longValue());
	}

	/**
	 * Release one hold.
	 * @return holds left, or -1 if the lock was gone, -2 if someone else held it
	 */
	long release(LockSpec spec, String owner, long token) {
		try {
			Long result = switch (spec.kind()) {
				case EXCLUSIVE -> spec.fair() ? this.scripts.execute(RELEASE_FAIR, RELEASE_FAIR.keys(spec), owner,
						Long.toString(token))
						: this.scripts.execute(RELEASE, RELEASE.keys(spec), owner, Long.toString(token), this.handOff);
				case READ -> this.scripts.execute(RELEASE_READ, RELEASE_READ.keys(spec), owner);
				case PERMIT -> this.scripts.execute(RELEASE_PERMIT, RELEASE_PERMIT.keys(spec),
						permitId(owner, token));
			};
			return (result != null) ? result : -1;
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "release", ex);
		}
	}

	/**
	 * Withdraw a request without waiting for the reply, after a Redis failure.
	 */
	void withdrawAsync(LockSpec spec, HandOffRequest handOff) {
		this.scripts.executeAsync(RELEASE, RELEASE.keys(spec), "", "", this.handOff, handOff.member());
	}

	/**
	 * Withdraw a request after giving up; a reservation for it passes on to the next request
	 * (or the lock is freed). A hold is never touched.
	 */
	void withdraw(LockSpec spec, HandOffRequest handOff) {
		try {
			this.scripts.execute(RELEASE, RELEASE.keys(spec), "", "", this.handOff, handOff.member());
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "withdraw", ex);
		}
	}

	/**
	 * Leave a fair lock's queue after giving up.
	 */
	void leaveQueue(LockSpec spec, String owner) {
		try {
			this.scripts.execute(LEAVE_FAIR, LEAVE_FAIR.keys(spec), owner);
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "leave queue", ex);
		}
	}

	/**
	 * Set a new lease.
	 * @return 1 if extended, -1 if the lock was gone, -2 if someone else held it
	 */
	long extend(LockSpec spec, String owner, long token, long leaseMillis) {
		try {
			return extend(null, spec, owner, token, leaseMillis, false);
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "extend", ex);
		}
	}

	/**
	 * @param keepLonger keep a longer lease the lock has, which an outer hold may rely on
	 */
	private long extend(@Nullable RedisConnection connection, LockSpec spec, String owner, long token,
			long leaseMillis, boolean keepLonger) {
		String lease = Long.toString(leaseMillis);
		String keep = keepLonger ? "1" : "0";
		Long result = switch (spec.kind()) {
			case EXCLUSIVE -> run(connection, EXTEND, EXTEND.keys(spec), owner, Long.toString(token), lease,
					keep);
			case READ -> run(connection, EXTEND_READ, EXTEND_READ.keys(spec), owner, lease,
					keep);
			case PERMIT -> run(connection, EXTEND_PERMIT, EXTEND_PERMIT.keys(spec), permitId(owner, token), lease);
		};
		return (result != null) ? result : -1;
	}

	private <T> @Nullable T run(@Nullable RedisConnection connection, LuaScript script, List<String> keys,
			Object... args) {
		return (connection != null) ? this.scripts.execute(connection, script, keys, args)
				: this.scripts.execute(script, keys, args);
	}

	/**
	 * Renew the leases of several holds in one script.
	 * @return for each hold: 1 renewed, -1 gone, -2 held by someone else
	 */
	List<Long> renew(List<RedisLockHandle> holds) {
		List<String> keys = RENEW.keys(holds.stream().map(RedisLockHandle::spec).toList());
		Object[] args = new Object[holds.size() * 3];
		for (int i = 0; i < holds.size(); i++) {
			RedisLockHandle hold = holds.get(i);
			args[3 * i] = hold.owner();
			args[3 * i + 1] = Long.toString(hold.fencingToken());
			args[3 * i + 2] = Long.toString(hold.spec().leaseMillis());
		}
		List<?> reply;
		try {
			reply = this.scripts.execute(RENEW, keys, args);
		}
		catch (DataAccessException ex) {
			throw failure(holds.get(0).name(), "renew", ex);
		}
		if (reply == null || reply.size() != holds.size()) {
			throw new LockAccessException(holds.get(0).name(), "unexpected reply from the renew script: " + reply,
					null);
		}
		return reply.stream().map((value) -> ((Number) value).longValue()).toList();
	}

	/**
	 * Ask Redis whether a hold is still its lock's owner (or reader, or permit holder).
	 */
	boolean isHeld(LockSpec spec, String owner, long token) {
		if (spec.kind() == LockKind.EXCLUSIVE) {
			List<@Nullable String> held = ownerAndToken(spec.name(), spec.lockKey());
			return held != null && owner.equals(held.get(0)) && Long.toString(token).equals(held.get(1));
		}
		try {
			Long result = (spec.kind() == LockKind.READ)
					? this.scripts.execute(HELD_MEMBER, List.of(spec.readersKey()), owner)
					: this.scripts.execute(HELD_MEMBER, List.of(spec.permitsKey()), permitId(owner, token));
			return result != null && result == 1;
		}
		catch (DataAccessException ex) {
			throw failure(spec.name(), "check", ex);
		}
	}

	private static String permitId(String owner, long token) {
		return owner + "|" + token;
	}

	/**
	 * Wait until the given number of replicas have a hold that was just written.
	 * <p>
	 * {@code WAIT} counts only the writes of its own server connection, and a client that
	 * reconnects (Lettuce re-sends commands in flight) may send it on a new connection, even
	 * to a new master, where it confirms nothing. So the server connection is identified
	 * after the {@code WAIT}: if it is one already seen before the hold was written, it
	 * carried the write. Otherwise the hold is written again (its lease set anew, which also
	 * checks it is still ours there) on one connection and waited for there.
	 * @param writtenNanos {@link System#nanoTime()} before the hold's script was sent
	 * @return the number of replicas that acknowledged, or -1 if the server no longer has
	 * the hold
	 */
	long awaitReplicas(LockSpec spec, String owner, long token, long writtenNanos, int replicas, long timeoutMillis) {
		try {
			SeenConnection last = this.lastConnection.get();
			if (this.sharedConnection && last != null && last.firstSeenNanos() - writtenNanos < 0) {
				ReplicaWait.Acknowledgement ack = this.redis.execute(
						(RedisCallback<ReplicaWait.Acknowledgement>) (connection) -> ReplicaWait
							.sendAndIdentify(connection, replicas, timeoutMillis),
						true);
				if (ack != null && seen(ack.identity()) - writtenNanos < 0) {
					return ack.acked();
				}
			}
			for (int attempt = 0; attempt < 3; attempt++) {
				ReplicaAck ack = this.redis.execute((RedisCallback<ReplicaAck>) (connection) -> {
					String before = ReplicaWait.identity(connection);
					// A write on this connection for the WAIT to cover; it never shortens the lease of an
					// outer hold of a reentrant lock.
					if (extend(connection, spec, owner, token, spec.leaseMillis(), true) < 0) {
						return new ReplicaAck(before, -1, before);
					}
					ReplicaWait.Acknowledgement after = ReplicaWait.sendAndIdentify(connection, replicas, timeoutMillis);
					return new ReplicaAck(before, after.acked(), after.identity());
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
			throw failure(spec.name(), "WAIT", ex);
		}
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

	private record ReplicaAck(String before, long acked, String after) {
	}

	boolean forceRelease(LockName name, String lockKey) {
		try {
			Long result = this.scripts.execute(FORCE_RELEASE, List.of(lockKey, LockKeys.releaseChannel(lockKey)));
			return result != null && result == 1;
		}
		catch (DataAccessException ex) {
			throw failure(name, "force-release", ex);
		}
	}

	boolean exists(LockName name, String lockKey) {
		try {
			return Boolean.TRUE.equals(this.redis.hasKey(lockKey));
		}
		catch (DataAccessException ex) {
			throw failure(name, "check", ex);
		}
	}

	/**
	 * Return the owner and fencing token stored in the lock, or {@code null} if it is free.
	 */
	/**
	 * Return the owner, token and remaining lease in milliseconds of a lock's hold, read in
	 * one step, or {@code null} if nobody holds it.
	 */
	@Nullable List<?> readHold(LockName name, String lockKey) {
		try {
			List<?> reply = this.scripts.execute(READ_HOLD, List.of(lockKey));
			if (reply == null || reply.size() < 3) {
				return null;
			}
			return List.of(text(reply.get(0)), text(reply.get(1)), reply.get(2));
		}
		catch (DataAccessException ex) {
			throw failure(name, "check", ex);
		}
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
				: String.valueOf(value);
	}

	@Nullable List<@Nullable String> ownerAndToken(LockName name, String lockKey) {
		try {
			List<Object> values = this.redis.opsForHash().multiGet(lockKey, List.of("owner", "token"));
			if (values.isEmpty() || values.get(0) == null) {
				return null;
			}
			return values.stream().map((value) -> (value != null) ? value.toString() : null).toList();
		}
		catch (DataAccessException ex) {
			throw failure(name, "check", ex);
		}
	}

	private static LockException failure(LockName name, String operation, DataAccessException ex) {
		if (Thread.currentThread().isInterrupted()) {
			// The client gave up on the command because the thread was interrupted.
			return new LockInterruptedException(name, ex);
		}
		String reason = String.valueOf(ex.getMessage());
		String root = ex.getMostSpecificCause().getMessage();
		if (root != null && !reason.contains(root)) {
			// Script errors say only "Error in execution"; the cause says why (OOM, NOPERM, ...).
			reason = reason + ": " + root;
		}
		return new LockAccessException(name, "Redis failed during " + operation + ": " + reason, ex);
	}

}
