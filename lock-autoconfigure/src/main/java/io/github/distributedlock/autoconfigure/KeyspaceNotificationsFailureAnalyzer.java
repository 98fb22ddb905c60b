package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.KeyspaceNotificationsException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a lock template whose default wait strategy is {@code KEYSPACE_EVENTS} on a
 * Redis server that does not publish the keyspace notifications it needs.
 */
class KeyspaceNotificationsFailureAnalyzer extends AbstractFailureAnalyzer<KeyspaceNotificationsException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, KeyspaceNotificationsException cause) {
		String description = "The keyspace-events wait strategy (distributed-lock.wait-strategy=keyspace-events) "
				+ "wakes waiters on Redis keyspace notifications for deleted and expired keys, but the server's "
				+ KeyspaceNotificationsException.PARAMETER + " is '" + cause.getCurrentFlags() + "' (missing '"
				+ cause.getMissingFlags() + "') and " + cause.getReason() + ".";
		String action = "Do one of these:\n" + "\t- enable the notifications on the server: CONFIG SET "
				+ KeyspaceNotificationsException.PARAMETER
				+ " Kgx, or the same in redis.conf or your provider's parameter group;\n"
				+ "\t- set distributed-lock.keyspace-events.configure=true to let the library run that CONFIG SET "
				+ "(the server must allow CONFIG);\n"
				+ "\t- remove distributed-lock.wait-strategy to use the default, pubsub, which needs no "
				+ "server configuration.";
		return new FailureAnalysis(description, action, cause);
	}

}
