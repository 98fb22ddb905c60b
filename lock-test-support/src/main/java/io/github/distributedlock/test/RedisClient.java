package io.github.distributedlock.test;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A minimal thread-safe Redis client over one cached {@link RespConnection}, so this
 * module needs no driver.
 */
final class RedisClient implements AutoCloseable {

	/**
	 * Commands after which the connection can no longer serve ordinary commands (or
	 * speaks RESP3), so it is dropped.
	 */
	private static final Set<String> MODE_CHANGING_COMMANDS = Set.of("subscribe", "psubscribe", "ssubscribe", "monitor",
			"quit", "reset", "hello");

	private final String host;

	private final int port;

	private final Duration timeout;

	private final List<List<String>> handshake;

	private final Object lock = new Object();

	private volatile @Nullable RespConnection connection;

	/**
	 * Create a client; nothing connects until the first command.
	 * @param handshake commands sent on every new connection, such as {@code AUTH} and
	 * {@code SELECT}
	 */
	RedisClient(String host, int port, Duration timeout, List<List<String>> handshake) {
		this.host = host;
		this.port = port;
		this.timeout = timeout;
		this.handshake = List.copyOf(handshake);
	}

	static List<List<String>> handshake(@Nullable String username, @Nullable String password, int database) {
		List<List<String>> commands = new ArrayList<>();
		if (password != null) {
			commands.add((username != null) ? List.of("AUTH", username, password) : List.of("AUTH", password));
		}
		if (database != 0) {
			commands.add(List.of("SELECT", Integer.toString(database)));
		}
		return commands;
	}

	@Nullable Object command(String... args) {
		if (args.length == 0) {
			throw new IllegalArgumentException("A command needs at least its name");
		}
		for (String arg : args) {
			Objects.requireNonNull(arg, "Command arguments must not be null");
		}
		List<String> command = List.of(args);
		synchronized (this.lock) {
			RespConnection cached = this.connection;
			if (cached != null) {
				try {
					return send(cached, command);
				}
				catch (IOException ex) {
					discard(cached);
					if (cached.replyStarted() || ex instanceof SocketTimeoutException) {
						throw failure(command, ex);
					}
					// The server dropped this idle connection (restart, CLIENT KILL)
					// before reading the command,
					// so it never ran and sending it again on a new connection is safe.
				}
			}
			RespConnection fresh = connect(command);
			this.connection = fresh;
			try {
				return send(fresh, command);
			}
			catch (IOException ex) {
				discard(fresh);
				throw failure(command, ex);
			}
		}
	}

	/**
	 * Drop the cached connection without waiting for a command in flight, which then
	 * fails.
	 */
	void disconnect() {
		RespConnection current = this.connection;
		this.connection = null;
		if (current != null) {
			current.close();
		}
	}

	@Override
	public void close() {
		disconnect();
	}

	private @Nullable Object send(RespConnection connection, List<String> command) throws IOException {
		String name = command.get(0).toLowerCase(Locale.ROOT);
		Object reply;
		try {
			reply = connection.exchange(command);
		}
		catch (EOFException ex) {
			if (name.equals("shutdown") && !connection.replyStarted()) {
				// A successful SHUTDOWN has no reply: the server just goes away.
				discard(connection);
				return null;
			}
			throw ex;
		}
		if (MODE_CHANGING_COMMANDS.contains(name)) {
			discard(connection);
		}
		if (reply instanceof RedisCommandException error) {
			throw new RedisCommandException(String.valueOf(error.getMessage()));
		}
		return reply;
	}

	/**
	 * Open a connection of the caller's own, logged in and on the right database, with
	 * the read timeout of {@link RespConnection#DEFAULT_TIMEOUT}: longer than the
	 * commands', as it may wait for a stalled server.
	 */
	RespConnection open() {
		try {
			return handshake(RespConnection.connect(this.host, this.port, RespConnection.DEFAULT_TIMEOUT));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not connect to Redis at " + this.host + ":" + this.port + ": " + ex,
					ex);
		}
	}

	private RespConnection connect(List<String> command) {
		try {
			return handshake(RespConnection.connect(this.host, this.port, this.timeout));
		}
		catch (IOException ex) {
			throw failure(command, ex);
		}
	}

	private RespConnection handshake(RespConnection fresh) throws IOException {
		try {
			for (List<String> setup : this.handshake) {
				Object reply = fresh.exchange(setup);
				if (reply instanceof RedisCommandException error) {
					throw new RedisCommandException(
							setup.get(0) + " failed on " + this.host + ":" + this.port + ": " + error.getMessage());
				}
			}
			return fresh;
		}
		catch (IOException | RuntimeException ex) {
			fresh.close();
			throw ex;
		}
	}

	private void discard(RespConnection connection) {
		if (this.connection == connection) {
			this.connection = null;
		}
		connection.close();
	}

	private UncheckedIOException failure(List<String> command, IOException ex) {
		// Only the name: arguments may hold passwords.
		return new UncheckedIOException("Redis command " + command.get(0).toUpperCase(Locale.ROOT) + " to " + this.host
				+ ":" + this.port + " failed: " + ex, ex);
	}

}
