package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.FencedFloorScripts.Attempt;
import io.github.distributedlock.redis.core.LockKeys;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The fenced floor: {@link FencedFloorScripts}, one script to acquire and one to release,
 * on one plain Lettuce connection shared by all threads (a cluster connection on a Redis
 * Cluster), and a second connection for the release messages. It keeps the two guarantees
 * this project's locks give and nothing else: a strictly increasing fencing token on
 * every hold, and an owner that Redis sees only as its digest. It waits as the peers do,
 * for a message that a release publishes, or for the lease it was told of: a message
 * wakes one waiting thread of each process, which tries again, and whoever tries first
 * takes the lock (no line, no order). Scenario 1 measures what the two guarantees cost
 * Redis; scenario 2 what a lock that keeps them and waits by pub/sub can reach between
 * processes.
 */
final class FencedFloorClient implements LockClient {

	private final PlainConnection connection;

	private final FencedFloorScripts scripts;

	private final StatefulRedisPubSubConnection<String, String> messages;

	/**
	 * One wake-up per lock this client has tried, by release channel: a release message
	 * lets one waiting thread try again.
	 */
	private final Map<String, Semaphore> wakeUps = new ConcurrentHashMap<>();

	/**
	 * This client's secret; each thread is an owner of its own, as in this project.
	 */
	private final String secret = UUID.randomUUID().toString();

	FencedFloorClient(String host, int port, boolean cluster) {
		this.connection = new PlainConnection(host, port, cluster);
		this.scripts = new FencedFloorScripts(this.connection.commands());
		this.messages = this.connection.connectPubSub();
		this.messages.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				Semaphore wakeUp = FencedFloorClient.this.wakeUps.get(channel);
				// One thread per message, and no more than one wake-up kept for a thread
				// that is not asleep yet: a message is only a hint to try again.
				if (wakeUp != null && wakeUp.availablePermits() == 0) {
					wakeUp.release();
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
		// Listening before the first attempt, so that no release after it goes unheard.
		Semaphore wakeUp = this.wakeUps.computeIfAbsent(FencedFloorScripts.channel(lock), this::subscribe);
		long deadline = System.nanoTime() + wait.toNanos();
		boolean waited = false;
		while (true) {
			Attempt attempt = this.scripts.acquire(lock, counter, owner, lease.toMillis(), waited);
			String token = attempt.token();
			if (token != null) {
				return () -> this.scripts.release(lock, owner, token);
			}
			long leftNanos = deadline - System.nanoTime();
			if (leftNanos <= 0) {
				return null;
			}
			// A holder that dies publishes nothing: sleep no longer than its lease.
			long leaseNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, attempt.leftMillis()));
			wakeUp.tryAcquire(Math.min(leftNanos, leaseNanos), TimeUnit.NANOSECONDS);
			waited = true;
		}
	}

	private Semaphore subscribe(String channel) {
		this.messages.sync().subscribe(channel);
		return new Semaphore(0);
	}

	@Override
	public void close() {
		this.messages.close();
		this.connection.close();
	}

}
