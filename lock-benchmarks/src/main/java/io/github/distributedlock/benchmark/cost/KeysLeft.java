package io.github.distributedlock.benchmark.cost;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.distributedlock.test.RedisServer;

/**
 * The keys and subscriptions a phase left on the server, read with {@code SCAN} and
 * {@code PUBSUB}.
 *
 * @param keys keys by kind: the lock hash, or the suffix after the lock key
 * ({@code requests}, {@code fence}, …)
 * @param channels channels with a subscriber ({@code PUBSUB CHANNELS})
 * @param subscriptions channel subscriptions over every connection ({@code sub=} of
 * {@code CLIENT LIST})
 */
record KeysLeft(Map<String, Long> keys, long channels, long subscriptions) {

	static KeysLeft take(RedisServer server) {
		Map<String, Long> keys = new TreeMap<>();
		String cursor = "0";
		do {
			List<?> reply = (List<?>) server.command("SCAN", cursor, "COUNT", "1000");
			if (reply == null) {
				throw new IllegalStateException("SCAN had no reply");
			}
			cursor = String.valueOf(reply.get(0));
			for (Object key : (List<?>) reply.get(1)) {
				keys.merge(kind(String.valueOf(key)), 1L, Long::sum);
			}
		}
		while (!cursor.equals("0"));
		List<?> channels = (List<?>) server.command("PUBSUB", "CHANNELS");
		long subscriptions = 0;
		for (String client : String.valueOf(server.command("CLIENT", "LIST")).split("\r?\n")) {
			for (String pair : client.split(" ")) {
				if (pair.startsWith("sub=")) {
					subscriptions += Long.parseLong(pair.substring(4));
				}
			}
		}
		return new KeysLeft(keys, (channels != null) ? channels.size() : 0, subscriptions);
	}

	/**
	 * Return the kind of a key of the engine's layout ({@code prefix:{name}} for the
	 * lock, {@code prefix:{name}:requests}, {@code prefix:{slot tag}:fence}, …).
	 */
	static String kind(String key) {
		int close = key.lastIndexOf('}');
		if (close < 0) {
			return "other";
		}
		if (close == key.length() - 1) {
			return "lock hash";
		}
		return key.substring(close + 2);
	}

	long total() {
		return this.keys.values().stream().mapToLong(Long::longValue).sum();
	}

}
