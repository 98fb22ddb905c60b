package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's reactive engine with the starter's defaults: waiters woken by pub/sub,
 * and cohorts of 64 holders within 20 ms. The worker's threads block on its publishers,
 * so the hand-off it measures is the engine's (timers and wake-ups on Reactor's threads)
 * plus one thread switch back to the worker.
 */
final class ThisProjectReactiveClient implements LockClient {

	private static final String SCOPE = "bench";

	private static final Duration BLOCK_MARGIN = Duration.ofSeconds(10);

	private final LettuceConnectionFactory connectionFactory;

	private final ReactiveRedisLockTemplate template;

	ThisProjectReactiveClient(String host, int port, boolean cluster) {
		this.connectionFactory = LettuceFactories.create(host, port, cluster);
		this.template = ReactiveRedisLockTemplate.builder(this.connectionFactory)
			.cohorts(64, Duration.ofMillis(20))
			.build();
	}

	@Override
	public @Nullable Hold acquire(String key, Duration lease, Duration wait) {
		LockRequest request = LockRequest.builder(SCOPE).key(key).lease(lease).waitTime(wait).build();
		ReactiveLockHandle handle = this.template.tryAcquire(request).block(wait.plus(BLOCK_MARGIN));
		if (handle == null) {
			return null;
		}
		return () -> handle.release().block(BLOCK_MARGIN);
	}

	@Override
	public void close() {
		this.template.close();
		this.connectionFactory.destroy();
	}

}
