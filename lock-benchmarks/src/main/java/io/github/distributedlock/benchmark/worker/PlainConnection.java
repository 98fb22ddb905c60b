package io.github.distributedlock.benchmark.worker;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * A plain Lettuce client and its one connection, to a standalone server or to a Redis
 * Cluster, for the floors, which talk to Redis without a lock library.
 */
final class PlainConnection implements AutoCloseable {

	private final AbstractRedisClient client;

	private final StatefulConnection<String, String> connection;

	private final RedisClusterCommands<String, String> commands;

	PlainConnection(String host, int port, boolean cluster) {
		RedisURI uri = RedisURI.create(host, port);
		if (cluster) {
			RedisClusterClient clusterClient = RedisClusterClient.create(uri);
			StatefulRedisClusterConnection<String, String> clusterConnection = clusterClient.connect();
			this.client = clusterClient;
			this.connection = clusterConnection;
			this.commands = clusterConnection.sync();
		}
		else {
			RedisClient standaloneClient = RedisClient.create(uri);
			StatefulRedisConnection<String, String> standaloneConnection = standaloneClient.connect();
			this.client = standaloneClient;
			this.connection = standaloneConnection;
			this.commands = standaloneConnection.sync();
		}
	}

	/**
	 * Return the connection's synchronous commands, the same for both kinds of server.
	 */
	RedisClusterCommands<String, String> commands() {
		return this.commands;
	}

	/**
	 * Open a connection of its own for pub/sub messages, to the same server or Cluster;
	 * the caller closes it before this.
	 */
	StatefulRedisPubSubConnection<String, String> connectPubSub() {
		return (this.client instanceof RedisClusterClient clusterClient) ? clusterClient.connectPubSub()
				: ((RedisClient) this.client).connectPubSub();
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
