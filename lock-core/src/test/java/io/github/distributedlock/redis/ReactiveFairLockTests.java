package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Fair locks through the reactive template, on a real redis-server: reactive and blocking
 * waiters share one queue in Redis and get the lock in arrival order; a waiter that gives
 * up or is cancelled leaves the queue; a waiter keeps its place past the fair waiter
 * timeout by calling Redis.
 */
class ReactiveFairLockTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private ReactiveRedisLockTemplate template;

	private RedisLockTemplate blocking;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.factory = RedisConnections.standalone(redis.server());
		this.template = ReactiveRedisLockTemplate.builder(this.factory)
			.fairWaiterTimeout(Duration.ofMillis(600))
			.build();
		this.blocking = RedisLockTemplate.builder(this.factory).fairWaiterTimeout(Duration.ofMillis(600)).build();
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.blocking.close();
		this.factory.destroy();
	}

	private static LockRequest.Builder fair(String key) {
		return LockRequest.builder("fair").key(key).fair(true);
	}

	@Test
	void reactiveAndBlockingWaitersGetTheLockInArrivalOrder() throws Exception {
		LockHandle holder = this.blocking.acquire(fair("order").build());
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<Disposable> waiting = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int arrival = i;
			if (i % 2 == 0) {
				waiting.add(this.template
					.locked(fair("order").waitTime(Duration.ofSeconds(20)).build(),
							Mono.fromRunnable(() -> order.add(arrival)).then(Mono.delay(Duration.ofMillis(20))))
					.subscribe());
			}
			else {
				Thread thread = new Thread(() -> {
					try (LockHandle handle = this.blocking
						.acquire(fair("order").waitTime(Duration.ofSeconds(20)).build())) {
						order.add(arrival);
						Thread.sleep(20);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				thread.start();
				threads.add(thread);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> queueLength("order") == arrival + 1);
		}
		holder.close();
		await().atMost(Duration.ofSeconds(20)).until(() -> order.size() == 4);
		assertThat(order).containsExactly(0, 1, 2, 3);
		for (Thread thread : threads) {
			thread.join(5_000);
		}
		waiting.forEach(Disposable::dispose);
	}

	@Test
	void aWaiterKeepsItsPlacePastTheFairWaiterTimeout() {
		LockHandle holder = this.blocking.acquire(fair("place").build());
		Mono<ReactiveLockHandle> first = this.template.acquire(fair("place").waitTime(Duration.ofSeconds(20)).build())
			.cache();
		first.subscribe();
		await().until(() -> queueLength("place") == 1);
		// Kept by attempts every third of the 600 ms timeout: still there well past it.
		sleep(2_000);
		assertThat(queueLength("place")).isEqualTo(1);
		holder.close();
		ReactiveLockHandle handle = first.block(BLOCK);
		assertThat(handle.waited()).isTrue();
		handle.release().block(BLOCK);
		assertThat(queueLength("place")).isZero();
	}

	@Test
	void aWaiterThatTimesOutOrIsCancelledLeavesTheQueue() {
		LockHandle holder = this.blocking.acquire(fair("leave").build());
		assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(
				() -> this.template.acquire(fair("leave").waitTime(Duration.ofMillis(300)).build()).block(BLOCK));
		await().until(() -> queueLength("leave") == 0);
		Disposable cancelled = this.template.acquire(fair("leave").waitTime(Duration.ofSeconds(20)).build())
			.subscribe();
		await().until(() -> queueLength("leave") == 1);
		cancelled.dispose();
		await().until(() -> queueLength("leave") == 0);
		holder.close();
		assertThat(this.blocking.isLocked("fair", "leave")).isFalse();
	}

	private long queueLength(String key) {
		Object length = redis.server().command("ZCARD", this.template.lockKey(fair(key).build()) + ":queue");
		return ((Number) length).longValue();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
