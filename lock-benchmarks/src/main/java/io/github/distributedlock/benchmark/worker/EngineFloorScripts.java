package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.FencedFloorScripts.Attempt;
import io.github.distributedlock.redis.core.LockKeys;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import org.jspecify.annotations.Nullable;

/**
 * The engine floor's calls ({@code engine-floor.lua}, one library of functions run with
 * {@code FCALL}): the keys and arguments of the engine's usual acquire and release, in
 * front of the fenced floor's commands on a lock kept as one string. A waiter's request
 * carries a claim, as the engine's do.
 * <p>
 * Thread-safe if the commands are.
 */
final class EngineFloorScripts implements WaitingFloorClient.Calls {

	private static final String LIBRARY = "engine-floor.lua";

	/**
	 * The claim of every request, the engine's usual one (2 s).
	 */
	private static final String CLAIM = "2000:";

	private final RedisClusterCommands<String, String> commands;

	/**
	 * Load the library, replacing one loaded before.
	 * @param commands the commands of a connection to a standalone server
	 */
	EngineFloorScripts(RedisClusterCommands<String, String> commands) {
		this.commands = commands;
		commands.functionLoad(FencedFloorScripts.text(LIBRARY), true);
	}

	@Override
	public Attempt acquire(String key, String owner, String hold, Duration lease, Duration wait,
			@Nullable String request) {
		String lock = Library.ENGINE_FLOOR.redisKey(key);
		String[] keys = { lock, LockKeys.fence(lock), lock + ":readers", lock + ":intent", requests(lock) };
		String leaseMillis = Long.toString(lease.toMillis());
		String waitMillis = Long.toString(wait.toMillis());
		List<Object> reply = (request != null)
				? this.commands.fcall("engine_floor_acquire", ScriptOutputType.MULTI, keys, owner, hold, leaseMillis,
						waitMillis, request)
				: this.commands.fcall("engine_floor_acquire", ScriptOutputType.MULTI, keys, owner, hold, leaseMillis,
						waitMillis);
		return ((Long) reply.get(0) == 1L) ? new Attempt(Long.toString((Long) reply.get(1)), 0)
				: new Attempt(null, (Long) reply.get(1));
	}

	@Override
	public void release(String key, String owner, String hold, String token) {
		String lock = Library.ENGINE_FLOOR.redisKey(key);
		String[] keys = { lock, requests(lock), lock + ":readers" };
		this.commands.fcall("engine_floor_release", ScriptOutputType.INTEGER, keys, owner, token, hold);
	}

	@Override
	public String channel(String key) {
		return "engine-released:" + Library.ENGINE_FLOOR.redisKey(key);
	}

	@Override
	public String request(String id) {
		return CLAIM + id;
	}

	/**
	 * Return the line of a lock: its waiters' requests, by arrival.
	 * @param lock the lock's key
	 * @return the line's key
	 */
	static String requests(String lock) {
		return lock + ":requests";
	}

}
