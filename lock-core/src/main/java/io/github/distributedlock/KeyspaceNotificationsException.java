package io.github.distributedlock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the {@link WaitStrategy#KEYSPACE_EVENTS} wait strategy is used but the
 * Redis server does not publish the keyspace notifications it needs, and the library may
 * not or cannot turn them on. The message says what to configure.
 */
public class KeyspaceNotificationsException extends IllegalStateException {

	/**
	 * The Redis configuration parameter that selects keyspace notifications.
	 */
	public static final String PARAMETER = "notify-keyspace-events";

	private final String currentFlags;

	private final String missingFlags;

	private final String reason;

	/**
	 * Create an exception.
	 * @param currentFlags the server's {@value #PARAMETER} setting, or {@code unknown}
	 * @param missingFlags the flags it lacks
	 * @param reason why the library did not add them
	 * @param cause the failure to read or set the parameter, if any
	 */
	public KeyspaceNotificationsException(String currentFlags, String missingFlags, String reason,
			@Nullable Throwable cause) {
		super("The KEYSPACE_EVENTS wait strategy needs Redis keyspace notifications for deleted and expired keys, "
				+ "but " + PARAMETER + " is '" + currentFlags + "' (missing '" + missingFlags + "') and " + reason
				+ ". Run 'CONFIG SET " + PARAMETER + " Kgx' (or set it in redis.conf or your provider's parameter "
				+ "group), set distributed-lock.keyspace-events.configure=true to let the library do it, "
				+ "or use the PUBSUB wait strategy, which needs no server configuration.", cause);
		this.currentFlags = currentFlags;
		this.missingFlags = missingFlags;
		this.reason = reason;
	}

	/**
	 * Return the server's {@value #PARAMETER} setting.
	 * @return the flags, or {@code unknown} if they could not be read
	 */
	public String getCurrentFlags() {
		return this.currentFlags;
	}

	/**
	 * Return the flags the wait strategy needs and the server lacks.
	 * @return the missing flags
	 */
	public String getMissingFlags() {
		return this.missingFlags;
	}

	/**
	 * Return why the library did not add the missing flags.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
