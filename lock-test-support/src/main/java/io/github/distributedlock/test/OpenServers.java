package io.github.distributedlock.test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Servers still open, closed by one JVM shutdown hook so that an orderly exit also
 * deletes their files.
 */
final class OpenServers {

	private static final Set<RedisServer> OPEN = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(OpenServers::closeAll, "redis-server-cleanup"));
	}

	private OpenServers() {
	}

	static void register(RedisServer server) {
		OPEN.add(server);
	}

	static void unregister(RedisServer server) {
		OPEN.remove(server);
	}

	private static void closeAll() {
		for (RedisServer server : List.copyOf(OPEN)) {
			try {
				server.close();
			}
			catch (RuntimeException ex) {
				// Keep closing the others; the tethering shell still kills whatever is
				// left.
			}
		}
	}

}
