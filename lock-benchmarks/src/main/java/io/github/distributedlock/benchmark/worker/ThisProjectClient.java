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
 * This project's engine with the starter's defaults: the {@code PUBSUB} wait strategy and
 * cohorts on, as {@code distributed-lock.*} with no property set builds it; or with
 * cohorts off ({@link Library#THIS_PROJECT_STRICT}).
 */
final class ThisProjectClient implements LockClient {

	private static final String SCOPE = "bench";

	/**
	 * System property of a worker JVM that changes the cohort's holders, for a sweep of
	 * the limits ({@code BENCH_WORKER_JVM_ARGS}).
	 */
	static final String COHORT_HOLDERS = "bench.cohort.holders";

	/**
	 * System property of a worker JVM that changes the cohort's time limit in
	 * milliseconds.
	 */
	static final String COHORT_TIME = "bench.cohort.time-ms";

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockTemplate template;

	/**
	 * @param cohorts whether to pass the lock between this process's threads in memory:
	 * 64 holders within 20 ms (the defaults of {@code distributed-lock.cohorts.*}),
	 * unless {@link #COHORT_HOLDERS} and {@link #COHORT_TIME} say otherwise
	 */
	ThisProjectClient(String host, int port, boolean cluster, boolean cohorts) {
		this.connectionFactory = LettuceFactories.create(host, port, cluster);
		RedisLockTemplateBuilder builder = RedisLockTemplate.builder(this.connectionFactory);
		this.template = (cohorts ? builder.cohorts(Integer.getInteger(COHORT_HOLDERS, 64),
				Duration.ofMillis(Long.getLong(COHORT_TIME, 20))) : builder)
			.build();
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
