package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An interrupted blocking fair waiter leaves the queue in Redis at once, as a waiter that
 * times out does. It used to send its leave with the interrupt flag still set, which the
 * driver refuses to wait for: the place stayed until the fair waiter timeout, and the
 * waiters behind it waited that long after the lock was released.
 */
class FairInterruptTests {

	private static final String KEY = "lock:{fair-interrupt:k}";

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void anInterruptedFairWaiterLeavesTheQueueAtOnce() throws Exception {
		try (RedisLockTemplate holder = template();
				RedisLockTemplate waiter = template();
				RedisLockTemplate next = template()) {
			LockHandle held = holder.acquire(fair().build());
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			CompletableFuture<Thread> started = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				started.complete(Thread.currentThread());
				try {
					waiter.acquire(fair().waitTime(Duration.ofSeconds(30)).build()).close();
				}
				catch (Throwable ex) {
					thrown.set(ex);
				}
			});
			thread.start();
			started.get(5, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 1);
			CompletableFuture<LockHandle> behind = CompletableFuture.supplyAsync(
					() -> next.acquire(fair().waitTime(Duration.ofSeconds(30)).build()), this.connected.executor());
			await().atMost(Duration.ofSeconds(5)).until(() -> queued() == 2);
			thread.interrupt();
			thread.join(TimeUnit.SECONDS.toMillis(5));
			assertThat(thread.isAlive()).isFalse();
			assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
			// The waiter timeout is 60 s: only its leave takes it out of the queue now.
			await().atMost(Duration.ofSeconds(3)).until(() -> queued() == 1);
			long released = System.nanoTime();
			held.close();
			// The release names the waiter behind, not the one that left: it takes the
			// lock at once, not after its heartbeat (20 s) or the other's timeout.
			try (LockHandle taken = behind.get(10, TimeUnit.SECONDS)) {
				assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(3));
				assertThat(taken.isHeld()).isTrue();
			}
		}
	}

	private long queued() {
		Object count = redis.server().command("ZCARD", LockKeys.fairQueue(KEY));
		return (count != null) ? ((Number) count).longValue() : 0;
	}

	private static LockRequest.Builder fair() {
		return LockRequest.builder("fair-interrupt").key("k").fair(true);
	}

	private RedisLockTemplate template() {
		return RedisLockTemplate.builder(this.connected.connectionFactory())
			.fairWaiterTimeout(Duration.ofSeconds(60))
			.build();
	}

}
