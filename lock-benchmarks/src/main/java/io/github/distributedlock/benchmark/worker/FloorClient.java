package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;

/**
 * The physical floor: {@code SET key val NX PX} to acquire and {@code DEL} to release, on
 * one plain Lettuce connection shared by all threads (a cluster connection on a Redis
 * Cluster). It waits by retrying at once, which no real lock should do: the figures show
 * what two round trips cost, not a usable lock.
 */
final class FloorClient implements LockClient {

	private static final String VALUE = "1";

	private final AbstractRedisClient client;

	private final StatefulConnection<String, String> connection;

	private final RedisStringCommands<String, String> strings;

	private final RedisKeyCommands<String, String> keys;

	FloorClient(String host, int port, boolean cluster) {
		RedisURI uri = RedisURI.create(host, port);
		if (cluster) {
			RedisClusterClient clusterClient = RedisClusterClient.create(uri);
			StatefulRedisClusterConnection<String, String> clusterConnection = clusterClient.connect();
			this.client = clusterClient;
			this.connection = clusterConnection;
			this.strings = clusterConnection.sync();
			this.keys = clusterConnection.sync();
		}
		else {
			RedisClient standaloneClient = RedisClient.create(uri);
			StatefulRedisConnection<String, String> standaloneConnection = standaloneClient.connect();
			this.client = standaloneClient;
			this.connection = standaloneConnection;
			this.strings = standaloneConnection.sync();
			this.keys = standaloneConnection.sync();
		}
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) {
		SetArgs nx = SetArgs.Builder.nx().px(lease.toMillis());
		long deadline = System.nanoTime() + wait.toNanos();
		while (!"OK".equals(this.strings.set(key, VALUE, nx))) {
			if (System.nanoTime() - deadline > 0) {
				return null;
			}
			Thread.onSpinWait();
		}
		return () -> this.keys.del(key);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
