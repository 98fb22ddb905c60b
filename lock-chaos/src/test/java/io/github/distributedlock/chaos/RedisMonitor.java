package io.github.distributedlock.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;

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

	private final RespConnection socket;

	private final Map<String, List<long[]>> expiries = new HashMap<>();

	private final Thread reader;

	private volatile boolean broken;

	private volatile boolean closed;

	private RedisMonitor(RespConnection socket) {
		this.socket = socket;
		this.reader = new Thread(this::read, "redis-monitor");
		this.reader.setDaemon(true);
		this.reader.start();
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

	private void read() {
		try {
			while (!this.closed) {
				Object line = this.socket.awaitNext();
				if (line instanceof String text) {
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
		this.socket.close();
	}

}
