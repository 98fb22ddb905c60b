package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.FencedFloorScripts.Attempt;
import io.github.distributedlock.redis.core.LockKeys;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * A floor that waits as this project does, by pub/sub: one script to acquire and one to
 * release, on one plain Lettuce connection shared by all threads (a cluster connection on
 * a Redis Cluster), and a second connection for the release messages. Both floors keep
 * what issue 25 keeps and nothing else: a strictly increasing fencing token on every
 * hold, an owner that Redis sees only as its digest, and the reservation's rules, which
 * hand the lock to the oldest waiter in line and make it the holder by its own attempt's
 * reply only (a message wakes it, nothing more).
 * <ul>
 * <li>The fenced floor ({@link FencedFloorScripts}) sends only what those rules need.
 * Scenario 1 measures what the token and the digest cost Redis; scenario 2 what a lock
 * that keeps those rules and wakes its waiters by pub/sub can reach at its cheapest.</li>
 * <li>The engine floor ({@link EngineFloorScripts}) runs the same commands behind the
 * calls this project's engine makes: what no layout of the engine's state gets under
 * (docs/design/floors.md).</li>
 * </ul>
 * <p>
 * A waiter that gives up leaves its request in line; a reservation made for it lapses
 * after its claim (2 s). Nothing in the benchmark gives up.
 */
final class WaitingFloorClient implements LockClient {

	private static final String RESERVED = "reserved:";

	private final PlainConnection connection;

	private final Calls calls;

	private final StatefulRedisPubSubConnection<String, String> messages;

	/**
	 * The release channels this client listens on: those of the locks it found taken.
	 */
	private final Map<String, Boolean> subscribed = new ConcurrentHashMap<>();

	/**
	 * The wake-up of each waiting request, by request.
	 */
	private final Map<String, Semaphore> waiting = new ConcurrentHashMap<>();

	/**
	 * This client's secret; each thread is an owner of its own, as in this project.
	 */
	private final String secret = UUID.randomUUID().toString();

	/**
	 * The prefix of this client's requests, which messages carry: not the secret.
	 */
	private final String requests = UUID.randomUUID().toString();

	private final AtomicLong nextRequest = new AtomicLong();

	private final AtomicLong holds = new AtomicLong();

	private WaitingFloorClient(PlainConnection connection, Calls calls) {
		this.connection = connection;
		this.calls = calls;
		this.messages = this.connection.connectPubSub();
		this.messages.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				if (message.startsWith(RESERVED)) {
					Semaphore wakeUp = WaitingFloorClient.this.waiting.get(message.substring(RESERVED.length()));
					if (wakeUp != null) {
						wakeUp.release();
					}
				}
			}

		});
	}

	/**
	 * The fenced floor's client.
	 */
	static WaitingFloorClient fenced(String host, int port, boolean cluster) {
		PlainConnection connection = new PlainConnection(host, port, cluster);
		FencedFloorScripts scripts = new FencedFloorScripts(connection.commands());
		return new WaitingFloorClient(connection, new Calls() {

			@Override
			public Attempt acquire(String key, String owner, String hold, Duration lease, Duration wait,
					@Nullable String request) {
				String lock = Library.FENCED_FLOOR.redisKey(key);
				return scripts.acquire(lock, LockKeys.fence(lock), owner, lease.toMillis(), request);
			}

			@Override
			public void release(String key, String owner, String hold, String token) {
				scripts.release(Library.FENCED_FLOOR.redisKey(key), owner, token);
			}

			@Override
			public String channel(String key) {
				return FencedFloorScripts.channel(Library.FENCED_FLOOR.redisKey(key));
			}

			@Override
			public String request(String id) {
				return id;
			}

		});
	}

	/**
	 * The engine floor's client, on a standalone server only.
	 */
	static WaitingFloorClient engine(String host, int port, boolean cluster) {
		if (cluster) {
			throw new IllegalArgumentException("The engine floor runs on a standalone server only");
		}
		PlainConnection connection = new PlainConnection(host, port, false);
		return new WaitingFloorClient(connection, new EngineFloorScripts(connection.commands()));
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) throws InterruptedException {
		String owner = this.secret + ":" + Thread.currentThread().getId();
		// The hold's id, as the engine's UniqueIds makes it: a process part and a
		// counter.
		String hold = this.requests + "." + Long.toHexString(this.holds.incrementAndGet());
		String channel = this.calls.channel(key);
		Semaphore wakeUp = new Semaphore(0);
		// A lock found taken before carries a request from the first attempt on, which
		// files it if the lock is still taken; a try files none.
		String request = (!wait.isZero() && this.subscribed.containsKey(channel)) ? wait(wakeUp) : null;
		long deadline = System.nanoTime() + wait.toNanos();
		try {
			while (true) {
				Attempt attempt = this.calls.acquire(key, owner, hold, lease, wait, request);
				String token = attempt.token();
				if (token != null) {
					return () -> this.calls.release(key, owner, hold, token);
				}
				if (request == null) {
					if (wait.isZero()) {
						return null;
					}
					// Listening first, then filing a request, so that no reservation
					// for it goes unheard.
					this.subscribed.computeIfAbsent(channel, this::subscribe);
					request = wait(wakeUp);
					continue;
				}
				long leftNanos = deadline - System.nanoTime();
				if (leftNanos <= 0) {
					return null;
				}
				// A holder that dies publishes nothing, nor does a waiter that dies
				// take its reservation: sleep no longer than the lease or claim Redis
				// reported.
				long leaseNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, attempt.leftMillis()));
				wakeUp.tryAcquire(Math.min(leftNanos, leaseNanos), TimeUnit.NANOSECONDS);
			}
		}
		finally {
			if (request != null) {
				this.waiting.remove(request);
			}
		}
	}

	private String wait(Semaphore wakeUp) {
		String request = this.calls.request(this.requests + "-" + this.nextRequest.incrementAndGet());
		this.waiting.put(request, wakeUp);
		return request;
	}

	private Boolean subscribe(String channel) {
		this.messages.sync().subscribe(channel);
		return Boolean.TRUE;
	}

	@Override
	public void close() {
		this.messages.close();
		this.connection.close();
	}

	/**
	 * What a floor sends to Redis, by the name the benchmark gives a lock.
	 */
	interface Calls {

		/**
		 * Run one acquire attempt.
		 * @param key the lock's name
		 * @param owner the owner, which Redis keeps only as its digest
		 * @param hold this acquisition's id, the same in each attempt
		 * @param lease the lease
		 * @param wait how long the caller waits ({@code 0}: a try)
		 * @param request the caller's request, or {@code null} before it found the lock
		 * taken
		 * @return the attempt's outcome
		 */
		Attempt acquire(String key, String owner, String hold, Duration lease, Duration wait, @Nullable String request);

		/**
		 * Release one hold.
		 */
		void release(String key, String owner, String hold, String token);

		/**
		 * Return the channel a release publishes {@code reserved:<request>} on.
		 */
		String channel(String key);

		/**
		 * Return the request to file for a wait of this id.
		 */
		String request(String id);

	}

}
