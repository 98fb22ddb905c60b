package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import org.jspecify.annotations.Nullable;

/**
 * The physical floor: {@code SET key val NX PX} to acquire and {@code DEL} to release, on
 * one plain Lettuce connection shared by all threads (a cluster connection on a Redis
 * Cluster). It waits by retrying at once, which no real lock should do: the figures show
 * what two round trips cost, not a usable lock.
 */
final class FloorClient implements LockClient {

	private static final String VALUE = "1";

	private final PlainConnection connection;

	private final RedisClusterCommands<String, String> commands;

	FloorClient(String host, int port, boolean cluster) {
		this.connection = new PlainConnection(host, port, cluster);
		this.commands = this.connection.commands();
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
	}

}
