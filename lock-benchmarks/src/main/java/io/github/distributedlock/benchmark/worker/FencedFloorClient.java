package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.redis.core.LockKeys;
import org.jspecify.annotations.Nullable;

/**
 * The fenced floor: {@link FencedFloorScripts}, one script to acquire and one to release,
 * on one plain Lettuce connection shared by all threads (a cluster connection on a Redis
 * Cluster). It keeps the two guarantees this project's locks give and nothing else: a
 * strictly increasing fencing token on every hold, and an owner that Redis sees only as
 * its digest. Like {@link FloorClient}, it waits by retrying at once, which no real lock
 * should do: it is measured uncontended only, to show what those guarantees cost Redis.
 */
final class FencedFloorClient implements LockClient {

	private final PlainConnection connection;

	private final FencedFloorScripts scripts;

	/**
	 * This client's secret; each thread is an owner of its own, as in this project.
	 */
	private final String secret = UUID.randomUUID().toString();

	FencedFloorClient(String host, int port, boolean cluster) {
		this.connection = new PlainConnection(host, port, cluster);
		this.scripts = new FencedFloorScripts(this.connection.commands());
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) {
		// The key is the lock's hash tag, so that its slot's fencing counter (one per
		// slot, as this project's) lives beside it on a Cluster.
		String lock = Library.FENCED_FLOOR.redisKey(key);
		String counter = LockKeys.fence(lock);
		String owner = this.secret + ":" + Thread.currentThread().getId();
		long deadline = System.nanoTime() + wait.toNanos();
		String token;
		while ((token = this.scripts.acquire(lock, counter, owner, lease.toMillis())) == null) {
			if (System.nanoTime() - deadline > 0) {
				return null;
			}
			Thread.onSpinWait();
		}
		String held = token;
		return () -> this.scripts.release(lock, owner, held);
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
