package io.github.distributedlock.benchmark.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import org.jspecify.annotations.Nullable;

/**
 * The fenced floor's two scripts, {@code fenced-floor-acquire.lua} and
 * {@code fenced-floor-release.lua}: the cheapest lock that keeps this project's fencing
 * token and owner secrecy, run with {@code EVALSHA} as the engine runs its own.
 * <p>
 * Thread-safe if the commands are.
 */
final class FencedFloorScripts {

	private static final String ACQUIRE = "fenced-floor-acquire.lua";

	private static final String RELEASE = "fenced-floor-release.lua";

	private final RedisScriptingCommands<String, String> commands;

	private final String acquireSha;

	private final String releaseSha;

	/**
	 * Load both scripts into the server's script cache (every master's, on a Cluster).
	 * @param commands the commands to run them with
	 */
	FencedFloorScripts(RedisScriptingCommands<String, String> commands) {
		this.commands = commands;
		this.acquireSha = commands.scriptLoad(text(ACQUIRE));
		this.releaseSha = commands.scriptLoad(text(RELEASE));
	}

	/**
	 * Take a lock that nobody holds, or that is reserved for the caller's request.
	 * @param lock the lock's key
	 * @param counter the fencing counter's key, in the lock's hash slot
	 * @param owner the owner, which Redis keeps only as its digest
	 * @param leaseMillis the lease
	 * @param request the caller's request, filed in the lock's line if the lock is taken,
	 * or {@code null} for none (a caller that has not found the lock taken yet)
	 * @return the attempt's outcome
	 */
	Attempt acquire(String lock, String counter, String owner, long leaseMillis, @Nullable String request) {
		String[] keys = { lock, counter };
		String lease = Long.toString(leaseMillis);
		List<Object> reply = (request != null)
				? this.commands.evalsha(this.acquireSha, ScriptOutputType.MULTI, keys, owner, lease, request)
				: this.commands.evalsha(this.acquireSha, ScriptOutputType.MULTI, keys, owner, lease);
		return ((Long) reply.get(0) == 1L) ? new Attempt((String) reply.get(1), 0)
				: new Attempt(null, (Long) reply.get(1));
	}

	/**
	 * Return the line of a lock: its waiters' requests, by arrival.
	 * @param lock the lock's key
	 * @return the line's key, in the lock's hash slot
	 */
	static String line(String lock) {
		return lock + ":line";
	}

	/**
	 * Return the channel that a release publishes a reservation on, as
	 * {@code reserved:<request>}.
	 * @param lock the lock's key
	 * @return the channel
	 */
	static String channel(String lock) {
		return "fenced-released:" + lock;
	}

	/**
	 * Release one hold.
	 * @param lock the lock's key
	 * @param owner the owner that took it
	 * @param token the hold's fencing token
	 * @return whether the lock was this hold and is now deleted
	 */
	boolean release(String lock, String owner, String token) {
		Long released = this.commands.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { lock }, owner,
				token);
		return released == 1L;
	}

	/**
	 * The outcome of one acquire attempt.
	 *
	 * @param token the hold's fencing token, or {@code null} if the lock is held, by
	 * anyone
	 * @param leftMillis how long the lease of the hold that refused it has left
	 */
	record Attempt(@Nullable String token, long leftMillis) {

	}

	/**
	 * Return the text of a script of this package's resources (the floors' Lua).
	 */
	static String text(String name) {
		try (InputStream in = FencedFloorScripts.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Script " + name + " not found beside " + FencedFloorScripts.class);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read script " + name, ex);
		}
	}

}
