package io.github.distributedlock.benchmark;

import java.util.List;

import io.github.distributedlock.test.RedisServer;

/**
 * Connections, pub/sub subscriptions and memory of the server at one moment.
 *
 * @param connections connected clients, the harness's own included
 * @param channels channels with at least one subscriber
 * @param subscriptions channel subscriptions, one per channel and subscribed connection,
 * from {@code CLIENT LIST}
 * @param patterns pattern subscriptions, one per pattern and subscribed connection, from
 * {@code CLIENT LIST}
 */
record RedisSnapshot(long connections, long channels, long subscriptions, long patterns) {

	static RedisSnapshot take(RedisServer server) {
		long connections = 0;
		long subscriptions = 0;
		long patterns = 0;
		for (String client : String.valueOf(server.command("CLIENT", "LIST")).split("\r?\n")) {
			if (client.isBlank()) {
				continue;
			}
			connections++;
			subscriptions += field(client, "sub");
			patterns += field(client, "psub");
		}
		List<?> channels = (List<?>) server.command("PUBSUB", "CHANNELS");
		return new RedisSnapshot(connections, (channels != null) ? channels.size() : 0, subscriptions, patterns);
	}

	/**
	 * Return a numeric field of a {@code CLIENT LIST} line, such as {@code sub=3}.
	 */
	private static long field(String client, String name) {
		for (String pair : client.split(" ")) {
			if (pair.startsWith(name + "=")) {
				return Long.parseLong(pair.substring(name.length() + 1));
			}
		}
		return 0;
	}

	/**
	 * Return what changed since an earlier snapshot.
	 */
	RedisSnapshot minus(RedisSnapshot earlier) {
		return new RedisSnapshot(this.connections - earlier.connections, this.channels - earlier.channels,
				this.subscriptions - earlier.subscriptions, this.patterns - earlier.patterns);
	}

}
