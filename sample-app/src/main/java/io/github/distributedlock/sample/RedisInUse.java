package io.github.distributedlock.sample;

import java.util.List;
import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.stereotype.Component;

/**
 * Logs, once the application is ready, which Redis the locks use: its address as
 * configured, and the server and version it reports. Whatever answers on
 * {@code localhost:6379} would otherwise be used silently.
 */
@Component
class RedisInUse {

	private static final Log logger = LogFactory.getLog(RedisInUse.class);

	private final RedisConnectionFactory connectionFactory;

	private final DataRedisConnectionDetails connectionDetails;

	private final boolean inMemory;

	RedisInUse(RedisConnectionFactory connectionFactory, DataRedisConnectionDetails connectionDetails,
			Environment environment) {
		this.connectionFactory = connectionFactory;
		this.connectionDetails = connectionDetails;
		// Set by @AutoConfigureInMemoryLocks, for tests.
		this.inMemory = environment.getProperty("distributed-lock.in-memory", Boolean.class, false);
	}

	@EventListener(ApplicationReadyEvent.class)
	void logServer() {
		logger.info(describe());
	}

	String describe() {
		if (this.inMemory) {
			return "Locks are kept in memory (distributed-lock.in-memory), not in Redis";
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties info = connection.serverCommands().info("server");
			return "Locks use the Redis at " + address() + ": " + server(info);
		}
		catch (RuntimeException ex) {
			return "Locks use the Redis at " + address() + ", which did not answer INFO: " + ex.getMessage();
		}
	}

	String address() {
		DataRedisConnectionDetails.Sentinel sentinel = this.connectionDetails.getSentinel();
		if (sentinel != null) {
			return "Sentinel master '" + sentinel.getMaster() + "' via " + nodes(sentinel.getNodes());
		}
		DataRedisConnectionDetails.Cluster cluster = this.connectionDetails.getCluster();
		if (cluster != null) {
			return "Cluster via " + nodes(cluster.getNodes());
		}
		DataRedisConnectionDetails.Standalone standalone = this.connectionDetails.getStandalone();
		return (standalone != null) ? standalone.getHost() + ":" + standalone.getPort() : "a master/replica setup";
	}

	private static String nodes(List<DataRedisConnectionDetails.Node> nodes) {
		return String.join(",", nodes.stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

	/**
	 * Valkey reports {@code server_name:valkey} and {@code valkey_version} beside the
	 * {@code redis_version} it keeps for clients.
	 */
	static String server(@Nullable Properties info) {
		if (info == null) {
			return "a server that did not answer INFO server";
		}
		String valkey = info.getProperty("valkey_version");
		String name = (valkey != null) ? "Valkey " + valkey : "Redis " + info.getProperty("redis_version", "?");
		return name + " (" + info.getProperty("redis_mode", "standalone") + ")";
	}

}
