package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.github.distributedlock.redis.driver.RegisteredHold;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reactive template with cohorts on (docs/design/cohorting.md), on a real
 * redis-server: subscribers of one template pass the lock in memory, one at a time, with
 * strictly increasing tokens, beside another template that takes it through Redis.
 */
class ReactiveCohortTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static final int SUBSCRIBERS = 8;

	private static final int ROUNDS = 40;

	@Test
	void subscribersPassTheLockInMemoryOneAtATimeWithIncreasingTokensBesideAnotherTemplate() {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		// The shared connection is made before the replies run (spring-data-redis#2289).
		new StringRedisTemplate(factory).hasKey("warm-up");
		List<long[]> holds = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		CohortStatistics statistics;
		try (ReactiveRedisLockTemplate cohorts = ReactiveRedisLockTemplate.builder(factory)
			.cohorts(16, Duration.ofMillis(50))
			.build(); ReactiveRedisLockTemplate remote = ReactiveRedisLockTemplate.builder(factory).build()) {
			statistics = cohorts.cohortStatistics();
			Flux.range(0, SUBSCRIBERS * 2).flatMap((i) -> {
				ReactiveRedisLockTemplate template = (i % 2 == 0) ? cohorts : remote;
				return Flux.range(0, ROUNDS)
					.concatMap(
							(round) -> Mono.usingWhen(template.acquire(request()), (held) -> Mono.fromRunnable(() -> {
								if (inside.incrementAndGet() != 1) {
									overlaps.incrementAndGet();
								}
								holds.add(new long[] { held.fencingToken(), redisToken(held),
										(template == cohorts) ? 1 : 0 });
							})
								.then(Mono.delay(Duration.ofNanos(300_000)))
								.then(Mono.fromRunnable(inside::decrementAndGet)), ReactiveLockHandle::release));
			}, SUBSCRIBERS * 2).then().block(Duration.ofMinutes(2));
		}
		finally {
			factory.destroy();
		}
		assertThat(overlaps).as("holds that overlapped").hasValue(0);
		assertThat(holds).hasSize(SUBSCRIBERS * 2 * ROUNDS);
		for (int i = 1; i < holds.size(); i++) {
			assertThat(holds.get(i)[0]).as("the token of hold %d, above the one before", i)
				.isGreaterThan(holds.get(i - 1)[0]);
		}
		long passed = holds.stream().filter((hold) -> hold[0] != hold[1]).count();
		assertThat(passed).as("holds passed in memory").isPositive();
		assertThat(statistics.passes()).as("passes counted").isEqualTo(passed);
		assertThat(statistics.openings()).as("cohorts opened")
			.isPositive()
			.isLessThanOrEqualTo(SUBSCRIBERS * ROUNDS - passed);
		assertThat(holds.stream().filter((hold) -> hold[0] != hold[1] && hold[2] == 0))
			.as("passes to the other template")
			.isEmpty();
	}

	/**
	 * Return the token Redis records for the hold: a passed holder shows the next of its
	 * cohort's block.
	 */
	private static long redisToken(ReactiveLockHandle handle) {
		return ((RegisteredHold) handle).grant().token();
	}

	private static LockRequest request() {
		return LockRequest.builder("cohort")
			.key("reactive")
			.lease(Duration.ofSeconds(30))
			.waitTime(Duration.ofSeconds(60))
			.build();
	}

}
