package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;

/**
 * Redis's own record of when it set each lock's expiry: {@code MONITOR} shows every
 * {@code PEXPIRE}, scripts' included, with the server time (µs) at which it ran. The
 * workers' clocks cannot tell when a hold renewed by the watchdog (or extended by a
 * re-entry of a shared owner in another process) ended; this can: a lease set at Redis
 * time {@code t} for {@code ms} ended by {@code t + ms}, and the tokens are Redis grant
 * times in µs.
 * <p>
 * For short runs with few workers: {@code MONITOR} costs Redis a little for every
 * command.
 */
final class RedisMonitor implements AutoCloseable {

	private static final Pattern LINE = Pattern
		.compile("^(\\d+)\\.(\\d{6}) \\[\\d+ [^\\]]*\\] \"(?i:pexpire)\" \"([^\"]+)\" \"(\\d+)\"");

	private final @Nullable RespConnection socket;

	private final Map<String, List<long[]>> expiries = new HashMap<>();

	private volatile boolean broken;

	private final List<String> seen = new ArrayList<>();

	private volatile boolean closed;

	private RedisMonitor(RespConnection socket) {
		this.socket = socket;
		Thread reader = new Thread(() -> read(socket), "redis-monitor");
		reader.setDaemon(true);
		reader.start();
	}

	private RedisMonitor(String key, List<long[]> expiries) {
		this.socket = null;
		this.expiries.put(key, new ArrayList<>(expiries));
	}

	/**
	 * Return a monitor that saw only these expiries of one key, for tests of the checker.
	 * @param key the Redis key
	 * @param expiries each the Redis time (µs) at which an expiry was set, and its length
	 * (ms)
	 */
	static RedisMonitor recorded(String key, List<long[]> expiries) {
		return new RedisMonitor(key, expiries);
	}

	/**
	 * Start monitoring the Redis; returns once Redis confirmed.
	 */
	static RedisMonitor start(RedisServer redis) {
		RespConnection socket = redis.connect();
		Object ok = socket.command("MONITOR");
		if (!"OK".equals(ok)) {
			socket.close();
			throw new IllegalStateException("MONITOR answered " + ok);
		}
		return new RedisMonitor(socket);
	}

	private void read(RespConnection socket) {
		try {
			while (!this.closed) {
				Object line = socket.awaitNext();
				if (line instanceof String text) {
					synchronized (this.seen) {
						this.seen.removeIf(text::contains);
						this.seen.notifyAll();
					}
					Matcher matcher = LINE.matcher(text);
					if (matcher.find()) {
						long micros = Long.parseLong(matcher.group(1)) * 1_000_000 + Long.parseLong(matcher.group(2));
						synchronized (this.expiries) {
							this.expiries.computeIfAbsent(matcher.group(3), (key) -> new ArrayList<>())
								.add(new long[] { micros, Long.parseLong(matcher.group(4)) });
						}
					}
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			if (!this.closed) {
				this.broken = true;
				synchronized (this.seen) {
					// catchUp: nothing more will come.
					this.seen.notifyAll();
				}
			}
		}
	}

	/**
	 * Wait until the monitor has read every command Redis ran before this call: it sends
	 * a marker through another connection and waits for MONITOR to show it. The record is
	 * read on its own thread, which can fall behind a busy run. Returns at once if the
	 * monitor broke: its record then judges nothing ({@link #latestExpiryMillis}).
	 * @param redis the monitored Redis
	 * @param timeout how long to wait
	 */
	void catchUp(RedisServer redis, Duration timeout) throws InterruptedException {
		String marker = "monitor-marker-" + UUID.randomUUID();
		synchronized (this.seen) {
			this.seen.add(marker);
		}
		try (RespConnection connection = redis.connect()) {
			connection.command("ECHO", marker);
		}
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.seen) {
			while (this.seen.contains(marker) && !this.broken) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new IllegalStateException("MONITOR did not show a marker within " + timeout);
				}
				TimeUnit.NANOSECONDS.timedWait(this.seen, left);
			}
		}
	}

	/**
	 * Return the latest Redis time (ms) at which any expiry set on this key at Redis
	 * times in {@code [fromMicros, beforeMicros)} could have ended, or
	 * {@link Long#MAX_VALUE} if the monitor lost its connection and so may have missed
	 * one. A script computes an expiry from a time no later than the one MONITOR shows
	 * for the command; one ms is added for the rounding.
	 */
	long latestExpiryMillis(String key, long fromMicros, long beforeMicros) {
		if (this.broken) {
			return Long.MAX_VALUE;
		}
		long latest = Long.MIN_VALUE;
		synchronized (this.expiries) {
			for (long[] expiry : this.expiries.getOrDefault(key, List.of())) {
				if (expiry[0] >= fromMicros && expiry[0] < beforeMicros) {
					latest = Math.max(latest, expiry[0] / 1000 + expiry[1] + 1);
				}
			}
		}
		return latest;
	}

	/**
	 * Describe the expiries set on this key at Redis times in
	 * {@code [fromMicros, beforeMicros)}, each as its time after {@code fromMicros} and
	 * its length, for a report.
	 */
	String describe(String key, long fromMicros, long beforeMicros) {
		List<String> found = new ArrayList<>();
		synchronized (this.expiries) {
			for (long[] expiry : this.expiries.getOrDefault(key, List.of())) {
				if (expiry[0] >= fromMicros && expiry[0] < beforeMicros) {
					found.add(String.format("+%.3f ms for %d ms", (expiry[0] - fromMicros) / 1000.0, expiry[1]));
				}
			}
		}
		return "Redis set expiries " + found + ((this.broken) ? " (the monitor broke)" : "");
	}

	/**
	 * Return the Redis key of a worker's lock, with the default prefix.
	 */
	static String lockKey(String key) {
		return "lock:{" + WorkerConfig.SCOPE + ":" + key + "}";
	}

	boolean broken() {
		return this.broken;
	}

	@Override
	public void close() {
		this.closed = true;
		if (this.socket != null) {
			this.socket.close();
		}
	}

}
