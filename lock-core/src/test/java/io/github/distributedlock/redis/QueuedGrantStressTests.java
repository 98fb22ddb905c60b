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
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local line as a FIFO of places with offers of queued waiters
 * (docs/design/waiting-and-hand-off.md, "Offers of queued waiters") under waiters that
 * time out after a few milliseconds and are interrupted at random, while short holds are
 * handed over inside the JVM: no two holders at once, no waiter with a long wait time
 * that times out (a grant to a waiter that never wakes would hold the lock until its
 * lease), and nothing left in the line or in Redis at the end.
 */
class QueuedGrantStressTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldKeepTheLineLiveUnderTimeouts() throws Exception {
		stress(false);
	}

	@Test
	void shouldKeepTheLineLiveUnderTimeoutsAndInterrupts() throws Exception {
		stress(true);
	}

	private void stress(boolean interrupts) throws Exception {
		LettuceConnectionFactory second = RedisConnections.standalone(redis.server());
		try (RedisLockTemplate one = RedisLockTemplate.builder(this.connected.connectionFactory()).build();
				RedisLockTemplate two = RedisLockTemplate.builder(second).build()) {
			String key = one.lockKey(LockName.of("stress", "line"));
			AtomicBoolean inside = new AtomicBoolean();
			AtomicInteger acquired = new AtomicInteger();
			AtomicInteger interrupted = new AtomicInteger();
			AtomicInteger shortTimeouts = new AtomicInteger();
			ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
			List<Thread> workers = new CopyOnWriteArrayList<>();
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int thread = t;
				threads.add(this.connected.executor().submit(() -> {
					workers.add(Thread.currentThread());
					Random random = new Random(thread);
					RedisLockTemplate template = (thread < 6) ? one : two;
					while (System.nanoTime() - end < 0) {
						boolean patient = random.nextInt(3) == 0;
						Duration wait = patient ? Duration.ofSeconds(3) : Duration.ofMillis(1 + random.nextInt(20));
						LockRequest request = LockRequest.builder("stress")
							.key("line")
							.lease(Duration.ofSeconds(10))
							.waitTime(wait)
							.build();
						long start = System.nanoTime();
						try {
							Optional<LockHandle> held = template.tryAcquire(request);
							long took = System.nanoTime() - start;
							if (took - wait.toNanos() > TimeUnit.SECONDS.toNanos(2)) {
								failures.add("took " + TimeUnit.NANOSECONDS.toMillis(took) + " ms for a wait of "
										+ wait.toMillis() + " ms");
							}
							if (held.isEmpty()) {
								if (patient) {
									failures.add("a wait of 3 s timed out");
								}
								shortTimeouts.incrementAndGet();
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
				if (interrupts && !workers.isEmpty()) {
					workers.get(chaos.nextInt(workers.size())).interrupt();
				}
			}
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			System.out.printf("stress: %d acquired, %d interrupted, %d short timeouts, %d + %d grants%n",
					acquired.get(), interrupted.get(), shortTimeouts.get(), one.localGrants(), two.localGrants());
			assertThat(failures).isEmpty();
			assertThat(acquired.get()).isPositive();
			assertThat(one.localGrants()).isPositive();
			assertThat(one.waitingThreads()).isZero();
			assertThat(two.waitingThreads()).isZero();
			assertThat(redis.server().command("EXISTS", key)).as("nothing left held").isEqualTo(0L);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> Long.valueOf(0).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
			long start = System.nanoTime();
			one.acquire(LockRequest.builder("stress").key("line").waitTime(Duration.ofSeconds(5)).build()).close();
			assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(1));
		}
		finally {
			second.destroy();
		}
	}

}
