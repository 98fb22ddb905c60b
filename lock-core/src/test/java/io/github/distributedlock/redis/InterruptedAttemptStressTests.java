package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fair and multi-lock waiters interrupted at random, at any point of their wait,
 * including while an attempt's reply is on its way: an attempt that ran and took the
 * lock, whose reply the interrupt threw away, is found by one more attempt with its hold
 * id and released (docs/design/waiting-and-hand-off.md, "An interrupt is a reply the
 * caller throws away"). Before, such a hold stayed in Redis until its 10 s lease ran out,
 * and every other owner's wait timed out meanwhile.
 */
class InterruptedAttemptStressTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldLeaveNoFairHoldBehindAnInterruptedAttempt() throws Exception {
		stress(List.of("fair"), (template, wait) -> template.tryAcquire(request("fair", wait).fair(true).build()));
	}

	@Test
	void shouldLeaveNoMultiLockHoldBehindAnInterruptedAttempt() throws Exception {
		stress(List.of("multi-a", "multi-b"), (template, wait) -> {
			try {
				return Optional.of(template
					.acquireAll(List.of(request("multi-a", wait).build(), request("multi-b", wait).build())));
			}
			catch (LockTimeoutException ex) {
				return Optional.empty();
			}
		});
	}

	private void stress(List<String> keys, ContentionStress.Acquirer acquirer) throws Exception {
		LettuceConnectionFactory second = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate one = RedisLockTemplate.builder(this.connected.connectionFactory())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
				RedisLockTemplate two = RedisLockTemplate.builder(second)
					.fairWaiterTimeout(Duration.ofSeconds(60))
					.build()) {
			ContentionStress.Result result = ContentionStress.run(this.connected.executor(), 6,
					(thread) -> (thread % 2 == 0) ? one : two, acquirer, true, Duration.ofSeconds(4));
			System.out.printf("interrupted attempts (%s): %d acquired, %d interrupted%n", keys, result.acquired(),
					result.interrupted());
			assertThat(result.failures()).isEmpty();
			assertThat(result.acquired()).isPositive();
			assertThat(result.interrupted()).isPositive();
			for (String key : keys) {
				String lockKey = one.lockKey(LockName.of("interrupted", key));
				assertThat(redis.server().command("EXISTS", lockKey)).as("nothing left held on " + key).isEqualTo(0L);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.requests(lockKey))));
			}
			long start = System.nanoTime();
			acquirer.acquire(one, Duration.ofSeconds(5)).orElseThrow().close();
			assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(1));
		}
		finally {
			second.destroy();
		}
	}

	private static LockRequest.Builder request(String key, Duration wait) {
		return LockRequest.builder("interrupted").key(key).lease(Duration.ofSeconds(10)).waitTime(wait);
	}

}
