package io.github.distributedlock.redis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Ten thousand subscriptions waiting for one lock at once take a handful of threads, not
 * one each, and are served one at a time.
 */
class ReactiveManyWaitersTests {

	private static final int WAITERS = 10_000;

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@Test
	void shouldServeTenThousandConcurrentWaitersWithoutAThreadPerWaiter() {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.server());
		ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(factory).build();
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		try {
			LockRequest request = LockRequest.builder("many").key("one").waitTime(Duration.ofMinutes(5)).build();
			// Start the client's and the scheduler's threads before counting.
			template.execute(request, (context) -> Mono.just(1)).blockLast();
			ReactiveLockHandle holder = template.acquire(request).block(Duration.ofSeconds(10));
			int before = threads.getThreadCount();
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger maxInside = new AtomicInteger();
			AtomicInteger served = new AtomicInteger();
			Mono<Long> all = Flux.range(0, WAITERS).flatMap((i) -> template.execute(request, (context) -> {
				maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
				inside.decrementAndGet();
				served.incrementAndGet();
				return Mono.just(context.fencingToken());
			}), WAITERS).count().cache();
			all.subscribe();
			await().atMost(Duration.ofMinutes(1)).until(() -> template.waitingSubscriptions() == WAITERS);
			int waiting = threads.getThreadCount();
			holder.release().block(Duration.ofSeconds(10));
			long start = System.nanoTime();
			int peak = waiting;
			while (served.get() < WAITERS && System.nanoTime() - start < Duration.ofMinutes(4).toNanos()) {
				peak = Math.max(peak, threads.getThreadCount());
				sleep(50);
			}
			Long count = all.block(Duration.ofSeconds(30));
			System.out.printf(
					"%d waiters: %d threads before, %d while all waited, peak %d while served; " + "served in %d ms%n",
					WAITERS, before, waiting, peak, Duration.ofNanos(System.nanoTime() - start).toMillis());
			assertThat(count).isEqualTo(WAITERS);
			assertThat(maxInside).hasValue(1);
			assertThat(waiting - before).isLessThan(50);
			assertThat(peak - before).isLessThan(50);
			assertThat(template.waitingSubscriptions()).isZero();
		}
		finally {
			template.close();
			factory.destroy();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
