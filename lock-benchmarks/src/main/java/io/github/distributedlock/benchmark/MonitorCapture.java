package io.github.distributedlock.benchmark;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;

/**
 * Counts the commands that clients send, with {@code MONITOR}. Redis shows a command run
 * by a Lua script with the source {@code lua} instead of a client address, so those are
 * left out: what remains is one line per round trip. {@code MONITOR} slows Redis down, so
 * it runs only in a separate, unmeasured phase.
 */
final class MonitorCapture implements AutoCloseable {

	/**
	 * Commands that are not part of taking and releasing locks: the harness's own, and
	 * Redisson's connection keep-alive {@code PING} (every 30 s per pooled connection),
	 * which also comes from idle clients of other libraries in the same worker JVM.
	 */
	static final Set<String> IGNORED = Set.of("ping", "echo", "info", "config|resetstat", "config", "monitor", "dbsize",
			"flushall", "client|list");

	private final RespConnection connection;

	private final Map<String, Long> counts = new TreeMap<>();

	private final CountDownLatch markerSeen = new CountDownLatch(1);

	private volatile @Nullable String marker;

	private MonitorCapture(RespConnection connection) {
		this.connection = connection;
	}

	/**
	 * Connect and start monitoring.
	 * @param server the server
	 * @return the capture
	 */
	static MonitorCapture start(RedisServer server) {
		RespConnection connection = server.connect();
		Object ok = connection.command("MONITOR");
		if (!"OK".equals(ok)) {
			connection.close();
			throw new IllegalStateException("MONITOR on " + server + " answered " + ok);
		}
		MonitorCapture capture = new MonitorCapture(connection);
		Thread reader = new Thread(capture::read, "monitor-reader");
		reader.setDaemon(true);
		reader.start();
		return capture;
	}

	/**
	 * Stop after every command sent so far has been seen, and return the client-issued
	 * counts by command name.
	 * @param server the server, used to send a marker that ends the capture
	 * @return the counts, without {@link #IGNORED} commands
	 */
	Map<String, Long> finish(RedisServer server) {
		String end = "bench-monitor-end-" + System.nanoTime();
		this.marker = end;
		server.command("ECHO", end);
		try {
			if (!this.markerSeen.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("MONITOR did not show the end marker within 30 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while finishing MONITOR", ex);
		}
		close();
		return Map.copyOf(this.counts);
	}

	private void read() {
		try {
			while (true) {
				if (!(this.connection.awaitNext() instanceof String line)) {
					continue;
				}
				String end = this.marker;
				if (end != null && line.contains(end)) {
					this.markerSeen.countDown();
					return;
				}
				count(line);
			}
		}
		catch (IOException ex) {
			// Closed.
		}
	}

	/**
	 * Count one line such as {@code 1700000000.123456 [0 127.0.0.1:50000] "evalsha" "…"}.
	 */
	private void count(String line) {
		int open = line.indexOf('[');
		int close = line.indexOf(']', open + 1);
		if (open < 0 || close < 0) {
			return;
		}
		if (line.substring(open + 1, close).endsWith(" lua")) {
			return;
		}
		int start = line.indexOf('"', close);
		int end = line.indexOf('"', start + 1);
		if (start < 0 || end < 0) {
			return;
		}
		String command = line.substring(start + 1, end).toLowerCase(Locale.ROOT);
		if (!IGNORED.contains(command)) {
			this.counts.merge(command, 1L, Long::sum);
		}
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
