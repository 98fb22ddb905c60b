package io.github.distributedlock.benchmark.worker;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.Library;
import io.github.distributedlock.benchmark.worker.LockClient.Hold;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks against a real redis-server that the engine floor does what its instruction
 * count stands for: it takes a free name and keeps a hold there, which only that hold's
 * release deletes, and refuses a taken name.
 */
class EngineFloorClientTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldHoldAFreeNameUntilItsRelease() throws Exception {
		String lock = Library.ENGINE_FLOOR.redisKey("held");
		ExecutorService other = Executors.newSingleThreadExecutor();
		try (EngineFloorClient client = new EngineFloorClient(redis.server().host(), redis.server().port(), false)) {
			Hold hold = client.acquire("held", LEASE, Duration.ZERO);
			assertThat(hold).isNotNull();
			assertThat(redis.server().command("PTTL", lock)).isInstanceOf(Long.class)
				.satisfies((ttl) -> assertThat((Long) ttl).isBetween(1L, LEASE.toMillis()));
			assertThat(other.submit(() -> client.acquire("held", LEASE, Duration.ZERO)).get(5, TimeUnit.SECONDS))
				.as("another owner, while it is held")
				.isNull();
			hold.release();
			assertThat(redis.server().command("EXISTS", lock)).isEqualTo(0L);
			assertThat(other.submit(() -> client.acquire("held", LEASE, Duration.ZERO)).get(5, TimeUnit.SECONDS))
				.as("another owner, once it is released")
				.isNotNull();
		}
		finally {
			other.shutdownNow();
		}
	}

}
