package io.github.distributedlock.redis.blocking;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptArgs;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.ScriptRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.distributedlock.redis.script.LockScripts.FORCE_RELEASE;
import static io.github.distributedlock.redis.script.LockScripts.READ_HOLD;

/**
 * Runs the scripts that a {@link LockKind} builds, and the few plain commands,
 * translating Redis errors into {@link LockAccessException}s that name the lock.
 */
public final class LockCommands {

	private final StringRedisTemplate redis;

	private final ScriptRunner scripts;

	public LockCommands(StringRedisTemplate redis) {
		this.redis = redis;
		this.scripts = new ScriptRunner(redis.getRequiredConnectionFactory());
	}

	/**
	 * Ask Redis whether a hold is still its lock's owner (or reader, or permit holder).
	 */
	boolean isHeld(Grant hold) {
		LockSpec spec = hold.spec();
		ScriptCall call = spec.kind().isHeld(spec, hold.owner(), hold.token(), hold.hold());
		if (call == null) {
			List<@Nullable String> held = ownerAndToken(spec.name(), spec.lockKey());
			return held != null && LockOwners.digest(hold.owner()).equals(held.get(0))
					&& Long.toString(hold.token()).equals(held.get(1));
		}
		Long result = run(spec.name(), "check", call);
		return result != null && result == 1;
	}

	/**
	 * Delete a lock whoever holds it: the hold whose token is read first, never one taken
	 * after that (the script may run twice).
	 * @return whether a lock was deleted
	 */
	public boolean forceRelease(LockName name, String lockKey) {
		List<@Nullable String> held = ownerAndToken(name, lockKey);
		String token = (held != null) ? held.get(1) : null;
		if (token == null) {
			return false;
		}
		Long result = run(name, "force-release", FORCE_RELEASE
			.callWithKeys(List.of(lockKey, LockKeys.releaseChannel(lockKey)), new ScriptArgs.ForceRelease(token)));
		return result != null && result == 1;
	}

	/**
	 * Set a plain value that expires, in one command.
	 */
	public void write(LockName name, String key, String value, Duration expiry) {
		translated(name, "publish", () -> {
			this.redis.opsForValue().set(key, value, expiry);
			return null;
		});
	}

	/**
	 * Return a plain value, or {@code null} if there is none.
	 */
	public @Nullable String read(LockName name, String key) {
		return translated(name, "check", () -> this.redis.opsForValue().get(key));
	}

	public boolean exists(LockName name, String lockKey) {
		return translated(name, "check", () -> Boolean.TRUE.equals(this.redis.hasKey(lockKey)));
	}

	/**
	 * Return the owner's digest, the token, the remaining lease in milliseconds and the
	 * id of one hold of a lock, read in one step, or {@code null} if nobody holds it.
	 */
	public @Nullable List<?> readHold(LockName name, String lockKey) {
		List<?> reply = run(name, "check", READ_HOLD.callWithKeys(List.of(lockKey), new ScriptArgs.ReadHold()));
		if (reply == null || reply.size() < 4) {
			return null;
		}
		return List.of(text(reply.get(0)), text(reply.get(1)), reply.get(2), text(reply.get(3)));
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	/**
	 * Return the owner's digest and the fencing token stored in the lock, or {@code null}
	 * if it is free.
	 */
	public @Nullable List<@Nullable String> ownerAndToken(LockName name, String lockKey) {
		List<Object> values = translated(name, "check",
				() -> this.redis.opsForHash().multiGet(lockKey, List.of("owner", "token")));
		if (values.isEmpty() || values.get(0) == null) {
			return null;
		}
		return values.stream().<@Nullable String>map((value) -> (value != null) ? value.toString() : null).toList();
	}

	private <T> @Nullable T run(LockName name, String operation, ScriptCall call) {
		return translated(name, operation, () -> this.scripts.execute(call));
	}

	private static <T extends @Nullable Object> T translated(LockName name, String operation, Supplier<T> command) {
		try {
			return command.get();
		}
		catch (DataAccessException ex) {
			throw ScriptRunner.failure(name, operation, ex);
		}
	}

	/**
	 * Run a driver's script as a plain call on this thread, one of the port's own (never
	 * a caller's, which an interrupt could stop), and tell its reply or failure before
	 * returning.
	 */
	void runForDriver(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		Object result;
		try {
			result = run(name, operation, call);
		}
		catch (RuntimeException ex) {
			reply.failed(ex);
			return;
		}
		reply.granted(result);
	}

	@Nullable CompletableFuture<Object> sendForDriver(ScriptCall call) {
		return this.scripts.sendAsync(call);
	}

	boolean sendsAtOnce() {
		return this.scripts.sendsAtOnce();
	}

	@Nullable Duration commandTimeout() {
		return this.scripts.commandTimeout();
	}

	/**
	 * Refuse to start an acquisition on an interrupted thread, before anything is sent.
	 * @throws LockInterruptedException if the thread is interrupted
	 */
	public static void refuseIfInterrupted(LockName name) {
		if (Thread.currentThread().isInterrupted()) {
			throw new LockInterruptedException(name, new InterruptedException());
		}
	}

}
