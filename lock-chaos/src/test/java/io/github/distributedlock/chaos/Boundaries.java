package io.github.distributedlock.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RespConnection;
import org.jspecify.annotations.Nullable;

/**
 * Fault durations taken from the protocol's own constants ({@link ProtocolTimings}, and
 * the workers' lease and command timeout), each just below, at and just above the
 * constant; and the pieces the boundary tests share: finding a worker whose request waits
 * in a lock's line, and listening to a lock's release channel.
 */
final class Boundaries {

	/**
	 * How far "just below" and "just above" are from a constant: well above the
	 * scheduling noise of a JVM on an idle machine, well below any constant of 200 ms or
	 * more. A shorter constant (a cohort's 20 ms) is one half of itself away.
	 */
	static final Duration MARGIN = Duration.ofMillis(100);

	private Boundaries() {
	}

	/**
	 * One fault duration: a constant, or just below or just above it.
	 *
	 * @param constant the constant's name
	 * @param offset -1 below, 0 at, 1 above
	 * @param duration the duration
	 * @param margin how far below or above the constant it is
	 */
	record Point(String constant, int offset, Duration duration, Duration margin) {

		String label() {
			String where = switch (this.offset) {
				case -1 -> " − " + this.margin.toMillis() + " ms";
				case 1 -> " + " + this.margin.toMillis() + " ms";
				default -> "";
			};
			return this.constant + where + " = " + this.duration.toMillis() + " ms";
		}

		String kind(String what) {
			return what + ", " + label();
		}

	}

	/**
	 * Return the constant less its margin, the constant, and the constant plus its
	 * margin: {@link #MARGIN}, or half the constant where that is less.
	 */
	static List<Point> around(String constant, Duration value) {
		Duration margin = (value.compareTo(MARGIN.multipliedBy(2)) < 0) ? value.dividedBy(2) : MARGIN;
		return List.of(new Point(constant, -1, value.minus(margin), margin), new Point(constant, 0, value, margin),
				new Point(constant, 1, value.plus(margin), margin));
	}

	/**
	 * Return the points around each constant, in order.
	 */
	static List<Point> around(Map<String, Duration> constants) {
		List<Point> points = new ArrayList<>();
		constants.forEach((name, value) -> points.addAll(around(name, value)));
		return points;
	}

	/**
	 * A worker whose hand-off request waits in a lock's line.
	 *
	 * @param worker the worker
	 * @param request its request, as filed
	 */
	record Waiter(WorkerProcess worker, String request) {
	}

	/**
	 * Wait until the oldest request in the lock's line (the one the next release reserves
	 * the lock for) belongs to a running worker of the run, and return it.
	 */
	static Waiter oldestWaiter(ChaosRun run, RespConnection redis, String lockKey, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		String requests = ProtocolTimings.requestsKey(lockKey);
		while (System.nanoTime() < deadline) {
			Object oldest = redis.command("ZRANGE", requests, "0", "0");
			if (oldest instanceof List<?> list && !list.isEmpty()) {
				String request = (String) list.get(0);
				String process = ProtocolTimings.processIdOf(request);
				for (WorkerProcess worker : run.workers()) {
					if (worker.isAlive() && !worker.isPaused() && worker.processId().equals(process)) {
						return new Waiter(worker, request);
					}
				}
			}
			Thread.sleep(2);
		}
		throw new IllegalStateException(
				run.name() + ": no waiter of a running worker in " + requests + " within " + timeout);
	}

	/**
	 * A raw subscriber to release channels, outside the workers: it sees every release
	 * message, and lets a test act on each one the moment it arrives (stall the server,
	 * kill connections, publish it again).
	 */
	static final class ReleaseListener implements AutoCloseable {

		private final RespConnection socket;

		private final Thread reader;

		private final List<Message> messages = new CopyOnWriteArrayList<>();

		private final AtomicReference<@Nullable Consumer<Message>> action = new AtomicReference<>();

		private final Map<String, Long> clientIds = new ConcurrentHashMap<>();

		private volatile boolean closed;

		/**
		 * A message the listener received.
		 *
		 * @param nanos when it arrived
		 * @param channel the channel
		 * @param payload the message
		 */
		record Message(long nanos, String channel, String payload) {

			boolean isHandOff() {
				return this.payload.startsWith(ProtocolTimings.handOffMessagePrefix());
			}

		}

		ReleaseListener(RedisServer redis, List<String> lockKeys) throws IOException {
			this.socket = redis.connect();
			this.clientIds.put("self", (Long) this.socket.command("CLIENT", "ID"));
			List<String> args = new ArrayList<>(List.of("SUBSCRIBE"));
			lockKeys.forEach((key) -> args.add(ProtocolTimings.releaseChannel(key)));
			this.socket.send(args.toArray(String[]::new));
			for (int i = 0; i < lockKeys.size(); i++) {
				this.socket.awaitNext();
			}
			this.reader = new Thread(this::read, "release-listener");
			this.reader.setDaemon(true);
			this.reader.start();
		}

		/**
		 * The listener's own connection id, to spare it when killing pub/sub clients.
		 */
		long clientId() {
			return this.clientIds.get("self");
		}

		private void read() {
			try {
				while (!this.closed) {
					Object reply = this.socket.awaitNext();
					if (reply instanceof List<?> list && list.size() == 3 && "message".equals(list.get(0))) {
						Message message = new Message(System.nanoTime(), (String) list.get(1), (String) list.get(2));
						this.messages.add(message);
						Consumer<Message> current = this.action.get();
						if (current != null) {
							current.accept(message);
						}
					}
				}
			}
			catch (IOException | RuntimeException ex) {
				if (!this.closed) {
					System.err.println("release listener stopped: " + ex);
				}
			}
		}

		/**
		 * Run this on every message from now on (in the listener's thread), or nothing if
		 * {@code null}.
		 */
		void onMessage(@Nullable Consumer<Message> action) {
			this.action.set(action);
		}

		List<Message> messages() {
			return List.copyOf(this.messages);
		}

		@Override
		public void close() {
			this.closed = true;
			this.socket.close();
		}

	}

}
