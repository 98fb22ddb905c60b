package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.Optional;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's engine, built the way the README shows:
 * {@code RedisLockTemplate.builder(factory).build()}, so waiters use the default
 * {@code PUBSUB} strategy.
 */
final class ThisProjectClient implements LockClient {

	private static final String SCOPE = "bench";

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockTemplate template;

	ThisProjectClient(String host, int port, boolean cluster) {
		this.connectionFactory = LettuceFactories.create(host, port, cluster);
		this.template = RedisLockTemplate.builder(this.connectionFactory).build();
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) {
		LockRequest request = LockRequest.builder(SCOPE).key(key).lease(lease).waitTime(wait).build();
		Optional<LockHandle> handle = this.template.tryAcquire(request);
		return handle.<Hold>map((held) -> held::close).orElse(null);
	}

	@Override
	public void close() {
		this.template.close();
		this.connectionFactory.destroy();
	}

}
