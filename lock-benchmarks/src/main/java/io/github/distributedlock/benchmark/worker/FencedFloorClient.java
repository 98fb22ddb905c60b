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
 * The fenced floor: {@link FencedFloorScripts}, one script to acquire and one to release,
 * on one plain Lettuce connection shared by all threads (a cluster connection on a Redis
 * Cluster), and a second connection for the release messages. It keeps what issue 25
 * keeps and nothing else: a strictly increasing fencing token on every hold, an owner
 * that Redis sees only as its digest, and the reservation's rules, which hand the lock to
 * the oldest waiter in line and make it the holder by its own attempt's reply only (a
 * message wakes it, nothing more). Scenario 1 measures what the token and the digest cost
 * Redis; scenario 2 what a lock that keeps those rules and wakes its waiters by pub/sub
 * can reach at its cheapest.
 * <p>
 * A waiter that gives up leaves its request in line; a reservation made for it lapses
 * after its claim (2 s). Nothing in the benchmark gives up.
 */
final class FencedFloorClient implements LockClient {

	private static final String RESERVED = "reserved:";

	private final PlainConnection connection;

	private final FencedFloorScripts scripts;

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

	FencedFloorClient(String host, int port, boolean cluster) {
		this.connection = new PlainConnection(host, port, cluster);
		this.scripts = new FencedFloorScripts(this.connection.commands());
		this.messages = this.connection.connectPubSub();
		this.messages.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				if (message.startsWith(RESERVED)) {
					Semaphore wakeUp = FencedFloorClient.this.waiting.get(message.substring(RESERVED.length()));
					if (wakeUp != null) {
						wakeUp.release();
					}
				}
			}

		});
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) throws InterruptedException {
		// The key is the lock's hash tag, so that its slot's fencing counter (one per
		// slot, as this project's) lives beside it on a Cluster.
		String lock = Library.FENCED_FLOOR.redisKey(key);
		String counter = LockKeys.fence(lock);
		String owner = this.secret + ":" + Thread.currentThread().getId();
		String channel = FencedFloorScripts.channel(lock);
		Semaphore wakeUp = new Semaphore(0);
		// A lock found taken before carries a request from the first attempt on, which
		// files it if the lock is still taken.
		String request = this.subscribed.containsKey(channel) ? wait(wakeUp) : null;
		long deadline = System.nanoTime() + wait.toNanos();
		try {
			while (true) {
				Attempt attempt = this.scripts.acquire(lock, counter, owner, lease.toMillis(), request);
				String token = attempt.token();
				if (token != null) {
					return () -> this.scripts.release(lock, owner, token);
				}
				if (request == null) {
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
		String request = this.requests + "-" + this.nextRequest.incrementAndGet();
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

}
