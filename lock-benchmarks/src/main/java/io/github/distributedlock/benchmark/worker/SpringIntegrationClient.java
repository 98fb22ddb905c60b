package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * Spring Integration's {@code RedisLockRegistry} in {@code PUB_SUB_LOCK} mode, on its own
 * Lettuce connection factory.
 */
final class SpringIntegrationClient implements LockClient {

	private static final String REGISTRY_KEY = "bench-si";

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	SpringIntegrationClient(String host, int port, boolean cluster) {
		this.connectionFactory = LettuceFactories.create(host, port, cluster);
		this.registry = new RedisLockRegistry(this.connectionFactory, REGISTRY_KEY, Duration.ofSeconds(30));
		this.registry.setRedisLockType(RedisLockType.PUB_SUB_LOCK);
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) throws InterruptedException {
		DistributedLock lock = this.registry.obtain(key);
		if (!lock.tryLock(wait, lease)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connectionFactory.destroy();
	}

}
