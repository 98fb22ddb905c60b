package io.github.distributedlock.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.redis.script.LockScripts;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;

/**
 * Redis's own count, through {@code MONITOR}, of the hand-overs inside one JVM that it
 * ran ({@code hand-over.lua} sent by a client) and of those that granted the lock (the
 * script's {@code HSET} of {@code granted}, which no other script writes): the proof that
 * a test of hand-overs saw some. Thread-safe.
 */
final class HandOverRuns implements AutoCloseable {

	/** The script's SHA-1, as {@code EVALSHA} names it. */
	static final String SHA = new String(LockScripts.HAND_OVER.sha1(), StandardCharsets.US_ASCII);

	private static final Duration CATCH_UP = Duration.ofSeconds(10);

	private final RedisServer redis;

	private final RespConnection socket;

	private final Object lock = new Object();

	private long sent;

	private long granted;

	private String marker = "";

	private boolean markerSeen;

	private volatile boolean closed;

	private HandOverRuns(RedisServer redis, RespConnection socket) {
		this.redis = redis;
		this.socket = socket;
		Thread reader = new Thread(this::read, "hand-over-monitor");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start counting; returns once Redis confirmed.
	 * @param redis the Redis
	 * @return the count
	 */
	static HandOverRuns start(RedisServer redis) {
		RespConnection socket = redis.connect();
		Object ok = socket.command("MONITOR");
		if (!"OK".equals(ok)) {
			socket.close();
			throw new IllegalStateException("MONITOR answered " + ok);
		}
		return new HandOverRuns(redis, socket);
	}

	private void read() {
		String evalsha = "\"evalsha\" \"" + SHA + "\"";
		try {
			while (!this.closed) {
				Object reply = this.socket.awaitNext();
				if (!(reply instanceof String line)) {
					continue;
				}
				String lower = line.toLowerCase(java.util.Locale.ROOT);
				boolean fromScript = line.contains(" lua] ");
				synchronized (this.lock) {
					if (!fromScript && lower.contains(evalsha)) {
						this.sent++;
					}
					else if (fromScript && lower.contains("\"hset\"") && lower.contains("\"granted\"")) {
						this.granted++;
					}
					else if (!this.marker.isEmpty() && line.contains(this.marker)) {
						this.markerSeen = true;
						this.lock.notifyAll();
					}
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// Closed; a count after this waits for its marker in vain and says so.
		}
	}

	/**
	 * Return how many {@code hand-over.lua} commands clients sent, and how many of them
	 * granted the lock, up to this call.
	 * @return sent and granted
	 */
	long[] counts() throws InterruptedException {
		String marker = "hand-over-runs-" + UUID.randomUUID();
		synchronized (this.lock) {
			this.marker = marker;
			this.markerSeen = false;
		}
		this.redis.command("ECHO", marker);
		long deadline = System.nanoTime() + CATCH_UP.toNanos();
		synchronized (this.lock) {
			while (!this.markerSeen) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new IllegalStateException("MONITOR did not show a marker within " + CATCH_UP);
				}
				TimeUnit.NANOSECONDS.timedWait(this.lock, left);
			}
			return new long[] { this.sent, this.granted };
		}
	}

	@Override
	public void close() {
		this.closed = true;
		this.socket.close();
	}

}
