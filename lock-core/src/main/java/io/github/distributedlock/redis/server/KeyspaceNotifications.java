package io.github.distributedlock.redis.server;

import java.util.Properties;

import io.github.distributedlock.KeyspaceNotificationsException;
import io.github.distributedlock.LockName;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Makes sure Redis publishes the keyspace notifications that
 * {@link io.github.distributedlock.WaitStrategy#KEYSPACE_EVENTS} waits on: {@code K}
 * (keyspace channel), {@code g} (generic commands, for {@code del}) and {@code x}
 * (expired), or {@code A} in place of {@code g} and {@code x}.
 */
public final class KeyspaceNotifications {

	public static final String PARAMETER = KeyspaceNotificationsException.PARAMETER;

	private KeyspaceNotifications() {
	}

	/**
	 * Check the server's setting and, if allowed, add what is missing.
	 * @param configure whether this may run {@code CONFIG SET}
	 * @throws KeyspaceNotificationsException if the setting lacks flags and may not or
	 * cannot be changed; the message says what to configure
	 */
	static void ensureEnabled(RedisConnectionFactory connectionFactory, boolean configure) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			String update = update(flags(connection.serverCommands().getConfig(PARAMETER)), configure);
			if (update != null) {
				connection.serverCommands().setConfig(PARAMETER, update);
			}
		}
		catch (DataAccessException ex) {
			throw unreachable(ex);
		}
	}

	/**
	 * Return the flags in a {@code CONFIG GET} reply of the parameter, empty if none.
	 */
	public static String flags(@Nullable Properties config) {
		String value = (config != null) ? config.getProperty(PARAMETER) : null;
		return (value != null) ? value : "";
	}

	/**
	 * Return what to set the parameter to, given its flags now.
	 * @return the flags with those missing added, or {@code null} if none is missing
	 * @throws KeyspaceNotificationsException if flags are missing and may not be added
	 */
	public static @Nullable String update(String current, boolean configure) {
		String missing = missingFlags(current);
		if (missing.isEmpty()) {
			return null;
		}
		if (!configure) {
			throw new KeyspaceNotificationsException(current, missing, "CONFIG SET is not enabled for the library",
					null);
		}
		return current + missing;
	}

	public static KeyspaceNotificationsException unreachable(Exception ex) {
		return new KeyspaceNotificationsException("unknown", "Kgx",
				"the library could not read or set it (" + ex.getMessage() + ")", ex);
	}

	/**
	 * Return the error for a keyspace wait on Redis Cluster, where the notifications stay
	 * on the node that owns the key.
	 */
	public static IllegalStateException onCluster(LockName name) {
		return new IllegalStateException("Lock '" + name + "': the KEYSPACE_EVENTS wait strategy does not work on "
				+ "Redis Cluster, where keyspace notifications stay on the node that owns the key; use PUBSUB");
	}

	private static String missingFlags(String current) {
		StringBuilder missing = new StringBuilder();
		if (current.indexOf('K') < 0) {
			missing.append('K');
		}
		boolean all = current.indexOf('A') >= 0;
		if (!all && current.indexOf('g') < 0) {
			missing.append('g');
		}
		if (!all && current.indexOf('x') < 0) {
			missing.append('x');
		}
		return missing.toString();
	}

}
