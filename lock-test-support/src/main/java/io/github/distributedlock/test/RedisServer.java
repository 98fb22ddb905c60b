package io.github.distributedlock.test;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A real Redis server that a test talks to: its address, commands and raw connections.
 * <p>
 * Implementations are thread-safe. A server that this JVM launched and can also stop,
 * pause and kill is a {@link ManagedRedisServer}. {@link #command(String...)} throws
 * {@link RedisCommandException} for an error reply and
 * {@link java.io.UncheckedIOException} when the server cannot be reached or does not
 * answer within 5 seconds.
 */
public interface RedisServer extends AutoCloseable {

	/**
	 * Return the host clients connect to.
	 * @return the host, an IP address for launched servers
	 */
	String host();

	/**
	 * Return the port clients connect to.
	 * @return the port
	 */
	int port();

	/**
	 * Return a URI that Redis clients accept, such as {@code redis://127.0.0.1:6390},
	 * including credentials and database when the server needs them.
	 * @return the URI
	 */
	String uri();

	/**
	 * Send one command and return its reply: a {@link String} for simple and bulk
	 * strings, a {@link Long} for integers, a {@code List<Object>} for arrays and
	 * {@code null} for nil. An error nested in an array is returned as a
	 * {@link RedisCommandException} element rather than thrown.
	 * <p>
	 * Calls may share a cached connection, so connection state (such as {@code SELECT} or
	 * {@code MULTI}) is not guaranteed to carry over from one call to the next.
	 * @param args the command name and its arguments
	 * @return the reply
	 * @throws RedisCommandException if Redis answers with an error
	 */
	@Nullable Object command(String... args);

	/**
	 * Open a connection of the caller's own, for what {@link #command(String...)} cannot
	 * do: a {@code MONITOR} or a subscriber, or several commands in one write. It is
	 * logged in and on the right database like the connection behind
	 * {@link #command(String...)}.
	 * @return the connection, which the caller closes
	 * @throws java.io.UncheckedIOException if the server cannot be reached
	 */
	RespConnection connect();

	/**
	 * Return how often each command was called since the server started or since
	 * {@link #resetStats()}, from {@code INFO commandstats}. Keys are lowercase command
	 * names such as {@code evalsha} or {@code publish}; subcommands look like
	 * {@code config|resetstat}.
	 * @return an immutable map from command name to calls
	 */
	default Map<String, Long> commandCalls() {
		return CommandStats.parse(String.valueOf(command("INFO", "commandstats")));
	}

	/**
	 * Return how often one command was called, from {@link #commandCalls()}.
	 * @param name the command name, in any case
	 * @return the number of calls, zero when it was never called
	 */
	default long commandCalls(String name) {
		return commandCalls().getOrDefault(CommandStats.normalize(name), 0L);
	}

	/**
	 * Reset the statistics behind {@link #commandCalls()} ({@code CONFIG RESETSTAT}).
	 */
	default void resetStats() {
		command("CONFIG", "RESETSTAT");
	}

	/**
	 * Return the Redis version the server reports ({@code redis_version} of
	 * {@code INFO server}), such as {@code 6.2.11}. Valkey reports the Redis version it
	 * is compatible with: {@code 7.2.4} for Valkey 8.0.
	 * @return the version
	 * @throws IllegalStateException if the reply has no version
	 */
	default String redisVersion() {
		String version = InfoFields.parse(command("INFO", "server")).get("redis_version");
		if (version == null || !version.matches("\\d+\\..*")) {
			throw new IllegalStateException("INFO server of " + host() + ":" + port() + " gives no redis_version");
		}
		return version;
	}

	/**
	 * Return whether the server has Redis Functions ({@code FUNCTION LOAD},
	 * {@code FCALL}): Redis 7.0 or later, and Valkey. Without them the engine runs its
	 * scripts with {@code EVALSHA}, as on the Redis 6.2 bundled for machines without
	 * {@code redis-server}.
	 * @return whether the server has Functions
	 */
	default boolean hasFunctions() {
		String version = redisVersion();
		return Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
	}

	/**
	 * Delete every key in every database ({@code FLUSHALL}).
	 */
	default void flushAll() {
		command("FLUSHALL");
	}

	/**
	 * Release the server for good: a launched process or container is stopped and its
	 * files deleted, an external server is only disconnected. Does nothing when already
	 * closed.
	 */
	@Override
	void close();

}
