package io.github.distributedlock.redis.blocking;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.LockTarget;
import io.github.distributedlock.redis.core.LockTiming;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the linger of {@link WaitQueues}: a queue stays for the linger after its last
 * waiter left, and a hot lock, whose last waiter leaves once per acquisition, keeps one
 * timer task queued rather than one per leave. No Redis: without a listener container the
 * queues subscribe to nothing.
 */
class WaitQueuesTests {

	private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

	private final WaitQueues queues = new WaitQueues(null, LINGER_NANOS);

	@AfterEach
	void close() {
		this.queues.close();
	}

	@Test
	void shouldKeepOneTimerTaskForAHotLock() throws Exception {
		LockSpec spec = spec("hot");
		for (int i = 0; i < 1000; i++) {
			this.queues.leave(this.queues.join(spec));
		}

		assertThat(this.queues.size()).isEqualTo(1);
		assertThat(timer().getQueue()).hasSize(1);
	}

	@Test
	void shouldRemoveAQueueOnlyOnceNobodyJoinedItForTheLinger() throws Exception {
		LockSpec spec = spec("lingering");
		this.queues.leave(this.queues.join(spec));
		Thread.sleep(600);
		this.queues.leave(this.queues.join(spec));
		// The first leave's linger is over before the second one's.
		Thread.sleep(500);

		assertThat(this.queues.size()).as("queues 1,100 ms after the first leave, 500 ms after the last").isEqualTo(1);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.queues.size() == 0);
		assertThat(timer().getQueue()).isEmpty();
	}

	@Test
	void shouldKeepAQueueThatSomeoneIsIn() throws Exception {
		LockSpec spec = spec("held");
		this.queues.leave(this.queues.join(spec));
		WaitQueue queue = this.queues.join(spec);
		Thread.sleep(TimeUnit.NANOSECONDS.toMillis(LINGER_NANOS) + 200);

		assertThat(this.queues.size()).isEqualTo(1);
		this.queues.leave(queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.queues.size() == 0);
	}

	private ScheduledThreadPoolExecutor timer() throws Exception {
		Field field = WaitQueues.class.getDeclaredField("subscriber");
		field.setAccessible(true);
		return (ScheduledThreadPoolExecutor) field.get(this.queues);
	}

	static LockSpec spec(String key) {
		String lockKey = "p:{queues:" + key + "}";
		WaitMode waitMode = new WaitMode(WaitStrategy.PUBSUB, List.of(lockKey + ":released"), 100_000_000);
		return new LockSpec(new LockTarget(LockName.of("queues", key), lockKey, lockKey + ":released",
				LockKind.EXCLUSIVE, 0, lockKey), new LockTiming(30_000, 0, false, false, 0, 5_000), waitMode, true,
				null);
	}

}
