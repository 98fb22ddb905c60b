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
	 * Take a lock that nobody holds.
	 * @param lock the lock's key
	 * @param counter the fencing counter's key, in the lock's hash slot
	 * @param owner the owner, which Redis keeps only as its digest
	 * @param leaseMillis the lease
	 * @return the hold's fencing token, or {@code null} if the lock is held, by anyone
	 */
	@Nullable String acquire(String lock, String counter, String owner, long leaseMillis) {
		List<Object> reply = this.commands.evalsha(this.acquireSha, ScriptOutputType.MULTI,
				new String[] { lock, counter }, owner, Long.toString(leaseMillis));
		return (reply.size() == 2) ? (String) reply.get(1) : null;
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

	private static String text(String name) {
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
