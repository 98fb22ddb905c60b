package io.github.distributedlock.redis.server;

import io.github.distributedlock.LockName;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveServerCommands;

/**
 * Makes sure Redis publishes the keyspace notifications that a reactive keyspace wait
 * needs, as {@link KeyspaceNotifications} does, without blocking a thread. Once it finds
 * them on, it tells the {@link RedisServerFeatures} that the {@link LockRequestResolver}
 * reads, and is not asked again; a failed check is made again by the next request.
 * Thread-safe.
 */
public final class ReactiveKeyspaceCheck {

	private final ReactiveLockCommands commands;

	private final boolean configure;

	private final RedisServerFeatures server;

	/**
	 * @param configure whether this may run {@code CONFIG SET}
	 * @param server told when the notifications are found on
	 */
	public ReactiveKeyspaceCheck(ReactiveLockCommands commands, boolean configure, RedisServerFeatures server) {
		this.commands = commands;
		this.configure = configure;
		this.server = server;
	}

	/**
	 * Complete once keyspace notifications are on, configuring them if allowed.
	 * @param name the lock that waits for them, which an error on Cluster names
	 * @return a Mono that fails with a KeyspaceNotificationsException if they are off and
	 * may not or cannot be turned on, or with an IllegalStateException on Cluster
	 */
	public Mono<Void> ensureEnabled(LockName name) {
		if (this.server.keyspaceEventsChecked()) {
			return Mono.empty();
		}
		return Mono
			.usingWhen(this.commands.connection(), (connection) -> check(connection, name),
					ReactiveRedisConnection::closeLater)
			.onErrorMap(DataAccessException.class, KeyspaceNotifications::unreachable)
			.doOnSuccess((done) -> this.server.keyspaceEventsConfirmed());
	}

	private Mono<Void> check(ReactiveRedisConnection connection, LockName name) {
		if (connection instanceof ReactiveRedisClusterConnection) {
			return Mono.error(KeyspaceNotifications.onCluster(name));
		}
		ReactiveServerCommands server = connection.serverCommands();
		return server.getConfig(KeyspaceNotifications.PARAMETER)
			.map(KeyspaceNotifications::flags)
			.defaultIfEmpty("")
			.flatMap((current) -> {
				String update = KeyspaceNotifications.update(current, this.configure);
				return (update != null) ? server.setConfig(KeyspaceNotifications.PARAMETER, update).then()
						: Mono.<Void>empty();
			});
	}

}
