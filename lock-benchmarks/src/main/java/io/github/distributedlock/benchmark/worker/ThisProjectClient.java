package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.Optional;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplateBuilder;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's engine, built the way the README shows:
 * {@code RedisLockTemplate.builder(factory).build()}, so waiters use the default
 * {@code PUBSUB} strategy; or with cohorts on ({@link Library#THIS_PROJECT_COHORTS}).
 */
final class ThisProjectClient implements LockClient {

	private static final String SCOPE = "bench";

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockTemplate template;

	/**
	 * @param cohorts whether to pass the lock between this process's threads in memory:
	 * 16 holders within 20 ms
	 */
	ThisProjectClient(String host, int port, boolean cluster, boolean cohorts) {
		this.connectionFactory = LettuceFactories.create(host, port, cluster);
		RedisLockTemplateBuilder builder = RedisLockTemplate.builder(this.connectionFactory);
		this.template = (cohorts ? builder.cohorts(16, Duration.ofMillis(20)) : builder).build();
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
