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
	 * @param connectionFactory the connection factory
	 * @param configure whether this may run {@code CONFIG SET}
	 * @throws KeyspaceNotificationsException if the setting lacks flags and may not or
	 * cannot be changed; the message says what to configure
	 */
	static void ensureEnabled(RedisConnectionFactory connectionFactory, boolean configure) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			String current = read(connection);
			String missing = missingFlags(current);
			if (missing.isEmpty()) {
				return;
			}
			if (!configure) {
				throw notConfigurable(current, missing);
			}
			connection.serverCommands().setConfig(PARAMETER, current + missing);
		}
		catch (DataAccessException ex) {
			throw unreachable(ex);
		}
	}

	private static String read(RedisConnection connection) {
		return flags(connection.serverCommands().getConfig(PARAMETER));
	}

	/**
	 * Return the flags in a {@code CONFIG GET} reply of the parameter, empty if it has
	 * none.
	 */
	public static String flags(@Nullable Properties config) {
		String value = (config != null) ? config.getProperty(PARAMETER) : null;
		return (value != null) ? value : "";
	}

	/**
	 * Return the error for a setting that lacks flags and may not be changed.
	 */
	public static KeyspaceNotificationsException notConfigurable(String current, String missing) {
		return new KeyspaceNotificationsException(current, missing, "CONFIG SET is not enabled for the library", null);
	}

	/**
	 * Return the error for a setting that could not be read or changed.
	 */
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

	public static String missingFlags(String current) {
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
