package io.github.distributedlock.redis.server;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What the engine needs to know about its Redis, found out once when first needed:
 * whether it is a Cluster, and whether it publishes the keyspace notifications a keyspace
 * wait needs.
 */
public final class RedisServerFeatures {

	// Null for the reactive engine, which checks the keyspace notifications
	// without blocking (ReactiveKeyspaceCheck) before it resolves.
	private final @Nullable RedisConnectionFactory connectionFactory;

	private final boolean configureKeyspaceEvents;

	private volatile @Nullable Boolean cluster;

	private volatile boolean keyspaceEventsChecked;

	/**
	 * @param cluster whether Redis is a Cluster, or {@code null} to detect it
	 * @param configureKeyspaceEvents whether the keyspace notifications may be configured
	 */
	public RedisServerFeatures(@Nullable RedisConnectionFactory connectionFactory, @Nullable Boolean cluster,
			boolean configureKeyspaceEvents) {
		this.connectionFactory = connectionFactory;
		this.cluster = cluster;
		this.configureKeyspaceEvents = configureKeyspaceEvents;
	}

	public boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			try (RedisConnection connection = connectionFactory().getConnection()) {
				cluster = connection instanceof RedisClusterConnection;
			}
			this.cluster = cluster;
		}
		return cluster;
	}

	public boolean keyspaceEventsChecked() {
		return this.keyspaceEventsChecked;
	}

	/**
	 * Make sure keyspace notifications are on, configuring them if allowed.
	 * @throws io.github.distributedlock.KeyspaceNotificationsException if they are not
	 */
	public void checkKeyspaceEvents() {
		KeyspaceNotifications.ensureEnabled(connectionFactory(), this.configureKeyspaceEvents);
		keyspaceEventsConfirmed();
	}

	/**
	 * Note that keyspace notifications are on, as the reactive engine's check found.
	 */
	public void keyspaceEventsConfirmed() {
		this.keyspaceEventsChecked = true;
	}

	private RedisConnectionFactory connectionFactory() {
		RedisConnectionFactory factory = this.connectionFactory;
		if (factory == null) {
			throw new IllegalStateException("This lock template has no blocking Redis connection factory");
		}
		return factory;
	}

}
