package io.github.distributedlock.redis.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Refuses a Redis older than 6.2 at startup: the scripts use {@code SET ... GET} and
 * {@code ZADD GT}, which would fail at the first lock with a bare syntax error, and the
 * replica check sends {@code CLIENT INFO}; all are new in 6.2.
 */
public final class RedisVersion {

	static final int[] MINIMUM = { 6, 2 };

	private static final Log logger = LogFactory.getLog(RedisVersion.class);

	private RedisVersion() {
	}

	/**
	 * Check the version every reachable server reports; one that refuses {@code INFO} (as
	 * the documented minimal ACL does) is not checked.
	 * @return the versions read, none if {@code INFO} failed
	 * @throws IllegalStateException if a server is older than 6.2
	 * @throws RedisConnectionFailureException if Redis can't be reached, as the listener
	 * container would throw a moment later
	 */
	public static List<String> check(RedisConnectionFactory connectionFactory) {
		Properties info;
		try (RedisConnection connection = connectionFactory.getConnection()) {
			info = connection.serverCommands().info("server");
		}
		catch (RedisConnectionFailureException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the Redis version; not checked", ex);
			return List.of();
		}
		List<String> versions = new ArrayList<>();
		if (info != null) {
			for (String name : info.stringPropertyNames()) {
				// A Cluster's reply prefixes each node's fields with its address.
				if (name.equals("redis_version") || name.endsWith(".redis_version")) {
					String version = info.getProperty(name);
					check(version);
					versions.add(version);
				}
			}
		}
		return versions;
	}

	/**
	 * Check one {@code redis_version}.
	 * @throws IllegalStateException if it is older than 6.2
	 */
	public static void check(@Nullable String version) {
		if (version != null && isOlderThanMinimum(version)) {
			throw new IllegalStateException("Redis " + version + " is too old for distributed locks: they need Redis "
					+ MINIMUM[0] + "." + MINIMUM[1] + " or later (the lock scripts use SET ... GET and ZADD GT, "
					+ "replica acknowledgements CLIENT INFO). Upgrade Redis.");
		}
	}

	private static boolean isOlderThanMinimum(String version) {
		String[] parts = version.trim().split("\\.");
		for (int i = 0; i < MINIMUM.length; i++) {
			int part;
			try {
				part = (i < parts.length) ? Integer.parseInt(parts[i]) : 0;
			}
			catch (NumberFormatException ex) {
				// Not a version we can read: let the server prove itself.
				return false;
			}
			if (part != MINIMUM[i]) {
				return part < MINIMUM[i];
			}
		}
		return false;
	}

}
