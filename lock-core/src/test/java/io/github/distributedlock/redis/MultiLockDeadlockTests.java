package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two owners taking {a, b} and {b, a} a thousand times each must never deadlock, and
 * never hold the same lock at once.
 */
class MultiLockDeadlockTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldNotDeadlockWhenTwoOwnersLockTheSameKeysInOppositeOrders() throws Exception {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try (RedisLockTemplate first = RedisLockTemplate.builder(factory).build();
				RedisLockTemplate second = RedisLockTemplate.builder(factory).build()) {
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger overlaps = new AtomicInteger();
			List<Future<Integer>> workers = new ArrayList<>();
			for (int t = 0; t < 2; t++) {
				RedisLockTemplate owner = (t == 0) ? first : second;
				List<LockRequest> keys = (t == 0) ? List.of(request("a"), request("b"))
						: List.of(request("b"), request("a"));
				workers.add(executor.submit(() -> {
					int done = 0;
					for (int i = 0; i < 1000; i++) {
						owner.executeAll(keys, (context) -> {
							if (inside.incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							inside.decrementAndGet();
							return null;
						});
						done++;
					}
					return done;
				}));
			}
			for (Future<Integer> worker : workers) {
				assertThat(worker.get(120, TimeUnit.SECONDS)).isEqualTo(1000);
			}
			assertThat(overlaps.get()).isZero();
		}
		finally {
			executor.shutdownNow();
			factory.destroy();
		}
	}

	private static LockRequest request(String key) {
		return LockRequest.builder("deadlock").key(key).waitTime(Duration.ofSeconds(30)).build();
	}

}
