package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.redis.core.LockKeys;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * The engine floor ({@code engine-floor.lua}): the fewest commands a free name needs,
 * behind the calls this project's engine makes, run with {@code FCALL} on one plain
 * Lettuce connection. It bounds from below what any layout of the engine's state could
 * cost Redis per uncontended acquire and release while those calls stay, and so is
 * measured by {@code instructions.sh} only. Not a lock: it does not wait (a taken name is
 * refused at once) and nothing re-enters.
 */
final class EngineFloorClient implements LockClient {

	private static final String LIBRARY = "engine-floor.lua";

	private final PlainConnection connection;

	/** This client's secret; each thread is an owner of its own, as in this project. */
	private final String secret = UUID.randomUUID().toString();

	/** The process part of hold ids, as {@code UniqueIds} makes them. */
	private final String process = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());

	private final AtomicLong holds = new AtomicLong();

	EngineFloorClient(String host, int port, boolean cluster) {
		if (cluster) {
			throw new IllegalArgumentException("The engine floor runs on a standalone server only");
		}
		this.connection = new PlainConnection(host, port, false);
		this.connection.commands().functionLoad(FencedFloorScripts.text(LIBRARY), true);
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) {
		String lock = Library.ENGINE_FLOOR.redisKey(key);
		String owner = this.secret + ":" + Thread.currentThread().getId();
		String hold = this.process + "." + Long.toHexString(this.holds.incrementAndGet());
		String[] keys = { lock, LockKeys.fence(lock), lock + ":readers", lock + ":intent", lock + ":requests" };
		List<Object> reply = this.connection.commands()
			.fcall("engine_floor_acquire", ScriptOutputType.MULTI, keys, owner, hold, Long.toString(lease.toMillis()),
					Long.toString(wait.toMillis()));
		if ((Long) reply.get(0) != 1L) {
			return null;
		}
		String token = Long.toString((Long) reply.get(1));
		String[] releaseKeys = { lock, lock + ":requests", lock + ":readers" };
		return () -> this.connection.commands()
			.fcall("engine_floor_release", ScriptOutputType.INTEGER, releaseKeys, owner, token, hold);
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
