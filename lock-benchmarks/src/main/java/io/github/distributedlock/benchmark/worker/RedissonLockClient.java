package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} with its default single-server or cluster configuration. Every
 * acquisition passes an explicit lease, so Redisson's watchdog never runs, as with the
 * other libraries.
 */
final class RedissonLockClient implements LockClient {

	private final RedissonClient redisson;

	RedissonLockClient(String host, int port, boolean cluster) {
		Config config = new Config();
		String address = "redis://" + host + ":" + port;
		if (cluster) {
			config.useClusterServers().addNodeAddress(address);
		}
		else {
			config.useSingleServer().setAddress(address);
		}
		this.redisson = Redisson.create(config);
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) throws InterruptedException {
		RLock lock = this.redisson.getLock(key);
		if (!lock.tryLock(wait.toMillis(), lease.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
