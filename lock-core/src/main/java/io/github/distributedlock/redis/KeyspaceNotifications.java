package io.github.distributedlock.redis;

import java.util.Properties;

import io.github.distributedlock.KeyspaceNotificationsException;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Makes sure Redis publishes the keyspace notifications that
 * {@link io.github.distributedlock.WaitStrategy#KEYSPACE_EVENTS} waits on: {@code K}
 * (keyspace channel), {@code g} (generic commands, for {@code del}) and {@code x}
 * (expired), or {@code A} in place of {@code g} and {@code x}.
 */
final class KeyspaceNotifications {

	static final String PARAMETER = KeyspaceNotificationsException.PARAMETER;

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
				throw new KeyspaceNotificationsException(current, missing, "CONFIG SET is not enabled for the library",
						null);
			}
			connection.serverCommands().setConfig(PARAMETER, current + missing);
		}
		catch (DataAccessException ex) {
			throw new KeyspaceNotificationsException("unknown", "Kgx",
					"the library could not read or set it (" + ex.getMessage() + ")", ex);
		}
	}

	private static String read(RedisConnection connection) {
		Properties config = connection.serverCommands().getConfig(PARAMETER);
		String value = (config != null) ? config.getProperty(PARAMETER) : null;
		return (value != null) ? value : "";
	}

	static String missingFlags(String current) {
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
