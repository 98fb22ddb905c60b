package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * The physical floor: {@code SET key val NX PX} to acquire and {@code DEL} to release, on one plain Lettuce
 * connection shared by all threads. It waits by retrying at once, which no real lock should do: the figures show
 * what two round trips cost, not a usable lock.
 */
final class FloorClient implements LockClient {

	private static final String VALUE = "1";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	FloorClient(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) {
		SetArgs nx = SetArgs.Builder.nx().px(lease.toMillis());
		long deadline = System.nanoTime() + wait.toNanos();
		while (!"OK".equals(this.commands.set(key, VALUE, nx))) {
			if (System.nanoTime() - deadline > 0) {
				return null;
			}
			Thread.onSpinWait();
		}
		return () -> this.commands.del(key);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
