package io.github.distributedlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisServerCommands;

/**
 * Refuses, at startup, a Redis whose {@code maxmemory-policy} can evict lock keys. Every
 * lock key has a time to live, so a {@code volatile-*} policy evicts it first, and an
 * {@code allkeys-*} policy may evict it too; a lock whose key was evicted is free for a
 * second caller while its holder goes on, and learns of it only when it releases or
 * extends the lock.
 */
final class EvictionPolicyCheck {

	static final String ALLOW_PROPERTY = "distributed-lock.allow-eviction";

	private static final String PARAMETER = "maxmemory-policy";

	// INFO memory reports the policy as well, and providers that disable CONFIG (such as
	// ElastiCache) still answer INFO, so the policy is read there when CONFIG is refused.
	private static final String INFO_FIELD = "maxmemory_policy";

	private static final String NO_EVICTION = "noeviction";

	private static final Log logger = LogFactory.getLog(EvictionPolicyCheck.class);

	private EvictionPolicyCheck() {
	}

	/**
	 * Check the policy of the server the factory reaches, or of every master of a
	 * Cluster. A policy other than {@code noeviction} fails, or with
	 * {@code allowEviction} is logged as a warning; a policy that cannot be read (an ACL
	 * without {@code CONFIG} and {@code INFO}, a renamed command) is logged as a warning.
	 * Even {@code maxmemory 0} (no limit) does not make an evicting policy safe: a limit
	 * can be set at run time.
	 * @param connectionFactory the connection factory of the locks
	 * @param allowEviction whether an evicting policy only logs a warning
	 * @throws EvictingRedisException if a policy can evict lock keys and that is not
	 * allowed
	 * @throws RedisConnectionFailureException if Redis can't be reached, as the lock
	 * template would throw a moment later
	 */
	static void check(RedisConnectionFactory connectionFactory, boolean allowEviction) {
		for (Reading reading : read(connectionFactory)) {
			String policy = reading.policy();
			if (policy == null) {
				logger.warn("Could not read the maxmemory-policy of Redis at " + reading.server() + " ("
						+ reading.failure() + "), so distributed locks cannot check that it keeps their keys. "
						+ "If it can evict keys (any policy but noeviction), Redis deletes lock keys when memory runs "
						+ "short, and a second caller then takes a lock that is still held. Make sure the "
						+ "server's maxmemory-policy is noeviction.");
			}
			else if (!NO_EVICTION.equals(policy)) {
				if (!allowEviction) {
					throw new EvictingRedisException(reading.server(), policy);
				}
				logger.warn("Redis at " + reading.server() + " has maxmemory-policy '" + policy
						+ "', which can evict lock keys when memory runs short: a second caller then takes a lock "
						+ "that is still held. Starting anyway because " + ALLOW_PROPERTY + "=true.");
			}
		}
	}

	private static List<Reading> read(RedisConnectionFactory connectionFactory) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection cluster) {
				return readMasters(cluster);
			}
			// On Sentinel this is the current master: a replica promoted later is checked
			// at the next start.
			RedisServerCommands commands = connection.serverCommands();
			return List.of(read(RedisServerName.of(connectionFactory), () -> commands.getConfig(PARAMETER),
					() -> commands.info("memory")));
		}
	}

	/**
	 * Read the policy of every master, as each holds lock keys of its own slots. Replicas
	 * are not read: by default (replica-ignore-maxmemory) they leave eviction to their
	 * master.
	 */
	private static List<Reading> readMasters(RedisClusterConnection cluster) {
		Iterable<RedisClusterNode> nodes;
		try {
			nodes = cluster.clusterCommands().clusterGetNodes();
		}
		catch (RedisConnectionFailureException ex) {
			throw ex;
		}
		catch (DataAccessException ex) {
			return List.of(new Reading("the Redis Cluster", null, reason(ex)));
		}
		RedisClusterServerCommands commands = cluster.serverCommands();
		List<Reading> readings = new ArrayList<>();
		for (RedisClusterNode node : nodes) {
			if (node.isMaster() && !node.isMarkedAsFail()) {
				readings.add(read(node.asString(), () -> commands.getConfig(node, PARAMETER),
						() -> commands.info(node, "memory")));
			}
		}
		return readings;
	}

	private static Reading read(String server, Supplier<@Nullable Properties> config,
			Supplier<@Nullable Properties> info) {
		List<String> failures = new ArrayList<>(2);
		String policy = value(config, PARAMETER, failures);
		if (policy == null) {
			policy = value(info, INFO_FIELD, failures);
		}
		return new Reading(server, policy, String.join("; ", failures));
	}

	private static @Nullable String value(Supplier<@Nullable Properties> command, String name, List<String> failures) {
		try {
			Properties reply = command.get();
			String value = (reply != null) ? reply.getProperty(name) : null;
			if (value == null) {
				failures.add("no " + name + " in the reply");
			}
			return value;
		}
		catch (RedisConnectionFailureException ex) {
			throw ex;
		}
		catch (DataAccessException ex) {
			failures.add(reason(ex));
			return null;
		}
	}

	/**
	 * Return Redis's own error, such as "NOPERM ...", which the client wraps in "Error in
	 * execution".
	 */
	private static String reason(DataAccessException ex) {
		return String.valueOf(ex.getMostSpecificCause().getMessage());
	}

	/**
	 * The policy of one server.
	 *
	 * @param server the server's name for messages
	 * @param policy its policy, or {@code null} if it could not be read
	 * @param failure why it could not be read
	 */
	private record Reading(String server, @Nullable String policy, String failure) {
	}

}
