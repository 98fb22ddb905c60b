package io.github.distributedlock.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;

/**
 * Redis's own record, through {@code MONITOR}, of how often it ran a command since a
 * mark: the proof that a command whose reply a {@link ReplyDrop} dropped was really run
 * twice, whatever the client reported. Only what clients sent counts, not what scripts
 * called. Thread-safe.
 */
final class CommandRuns implements AutoCloseable {

	private static final Duration CATCH_UP = Duration.ofSeconds(5);

	private final RedisServer redis;

	private final RespConnection socket;

	private final List<String> lines = new ArrayList<>();

	private volatile boolean closed;

	private int markedAt;

	private CommandRuns(RedisServer redis, RespConnection socket) {
		this.redis = redis;
		this.socket = socket;
		Thread reader = new Thread(this::read, "command-runs-monitor");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start monitoring a Redis; returns once Redis confirmed.
	 * @param redis the Redis
	 * @return the record
	 */
	static CommandRuns start(RedisServer redis) {
		RespConnection socket = redis.connect();
		Object ok = socket.command("MONITOR");
		if (!"OK".equals(ok)) {
			socket.close();
			throw new IllegalStateException("MONITOR answered " + ok);
		}
		return new CommandRuns(redis, socket);
	}

	private void read() {
		try {
			while (!this.closed) {
				Object line = this.socket.awaitNext();
				synchronized (this.lines) {
					this.lines.add(String.valueOf(line));
					this.lines.notifyAll();
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// Closed; a count after this waits for its marker in vain and says so.
		}
	}

	/**
	 * Count from now on: only commands that Redis runs after this call.
	 */
	void mark() throws InterruptedException {
		int at = catchUp();
		synchronized (this.lines) {
			this.markedAt = at;
		}
	}

	/**
	 * Return how often Redis ran exactly this command, arguments included, between the
	 * mark and this call.
	 * @param command the command's name and arguments, as sent
	 * @return the number of runs
	 */
	long runs(List<String> command) throws InterruptedException {
		int end = catchUp();
		String wanted = "] " + command.stream().map(CommandRuns::quoted).collect(Collectors.joining(" "));
		synchronized (this.lines) {
			return this.lines.subList(this.markedAt, end)
				.stream()
				.filter((line) -> line.endsWith(wanted) && !line.contains(" lua] "))
				.count();
		}
	}

	/**
	 * Send a marker through another connection and wait until MONITOR shows it, so that
	 * every command Redis ran before this call has been read.
	 * @return the number of lines read before the marker
	 */
	private int catchUp() throws InterruptedException {
		String marker = "command-runs-" + UUID.randomUUID();
		this.redis.command("ECHO", marker);
		long deadline = System.nanoTime() + CATCH_UP.toNanos();
		synchronized (this.lines) {
			int from = 0;
			while (true) {
				for (int i = from; i < this.lines.size(); i++) {
					if (this.lines.get(i).contains(marker)) {
						return i;
					}
				}
				from = this.lines.size();
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new IllegalStateException("MONITOR did not show a marker within " + CATCH_UP);
				}
				TimeUnit.NANOSECONDS.timedWait(this.lines, left);
			}
		}
	}

	/**
	 * Quote an argument as MONITOR shows it.
	 */
	private static String quoted(String argument) {
		StringBuilder quoted = new StringBuilder("\"");
		for (byte b : argument.getBytes(StandardCharsets.UTF_8)) {
			int c = b & 0xff;
			switch (c) {
				case '\\', '"' -> quoted.append('\\').append((char) c);
				case '\n' -> quoted.append("\\n");
				case '\r' -> quoted.append("\\r");
				case '\t' -> quoted.append("\\t");
				case 7 -> quoted.append("\\a");
				case '\b' -> quoted.append("\\b");
				default -> {
					if (c >= 0x20 && c <= 0x7e) {
						quoted.append((char) c);
					}
					else {
						quoted.append(String.format("\\x%02x", c));
					}
				}
			}
		}
		return quoted.append('"').toString();
	}

	@Override
	public void close() {
		this.closed = true;
		this.socket.close();
	}

}
