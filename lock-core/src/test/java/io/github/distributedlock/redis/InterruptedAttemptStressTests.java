package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
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

	private void stress(List<String> keys, Acquirer acquirer) throws Exception {
		LettuceConnectionFactory second = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate one = RedisLockTemplate.builder(this.connected.connectionFactory())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
				RedisLockTemplate two = RedisLockTemplate.builder(second)
					.fairWaiterTimeout(Duration.ofSeconds(60))
					.build()) {
			AtomicBoolean inside = new AtomicBoolean();
			AtomicInteger acquired = new AtomicInteger();
			AtomicInteger interrupted = new AtomicInteger();
			ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
			List<Thread> workers = new CopyOnWriteArrayList<>();
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 6; t++) {
				int thread = t;
				threads.add(this.connected.executor().submit(() -> {
					workers.add(Thread.currentThread());
					Random random = new Random(thread);
					RedisLockTemplate template = (thread % 2 == 0) ? one : two;
					while (System.nanoTime() - end < 0) {
						boolean patient = random.nextInt(3) == 0;
						Duration wait = patient ? Duration.ofSeconds(3) : Duration.ofMillis(1 + random.nextInt(20));
						try {
							Optional<LockHandle> held = acquirer.acquire(template, wait);
							if (held.isEmpty()) {
								if (patient) {
									failures.add("a wait of 3 s timed out");
								}
								continue;
							}
							try (LockHandle handle = held.get()) {
								if (!inside.compareAndSet(false, true)) {
									failures.add("two holders at once");
								}
								long until = System.nanoTime() + random.nextInt(200_000);
								while (System.nanoTime() - until < 0) {
									Thread.onSpinWait();
								}
								acquired.incrementAndGet();
								inside.set(false);
							}
						}
						catch (LockInterruptedException ex) {
							interrupted.incrementAndGet();
						}
						Thread.interrupted();
					}
				}));
			}
			Random chaos = new Random(42);
			while (System.nanoTime() - end < 0) {
				Thread.sleep(1 + chaos.nextInt(3));
				if (!workers.isEmpty()) {
					workers.get(chaos.nextInt(workers.size())).interrupt();
				}
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}

			System.out.printf("interrupted attempts (%s): %d acquired, %d interrupted%n", keys, acquired.get(),
					interrupted.get());
			assertThat(failures).isEmpty();
			assertThat(acquired.get()).isPositive();
			assertThat(interrupted.get()).isPositive();
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

	@FunctionalInterface
	private interface Acquirer {

		Optional<LockHandle> acquire(RedisLockTemplate template, Duration wait);

	}

}
