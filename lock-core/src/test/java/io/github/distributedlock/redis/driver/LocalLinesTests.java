package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockName;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the linger of {@link LocalLines}: a line stays for the linger after its last
 * waiter left, and a hot lock, whose last waiter leaves once per acquisition, schedules
 * one timer task rather than one per leave. No Redis: polling lines subscribe to nothing.
 */
class LocalLinesTests {

	private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

	private final Scheduler scheduler = Schedulers.newSingle("linger-test");

	private final AtomicInteger timerTasks = new AtomicInteger();

	private final LocalLines lines = TestLines.of(new SchedulerPort(new CountingScheduler()), LINGER_NANOS);

	@AfterEach
	void close() {
		this.lines.close();
		this.scheduler.dispose();
	}

	@Test
	void shouldScheduleOneTimerTaskForAHotLock() {
		LockSpec spec = spec("hot");
		for (int i = 0; i < 1000; i++) {
			this.lines.leave(this.lines.join(spec));
		}

		assertThat(this.lines.size()).isEqualTo(1);
		assertThat(this.timerTasks).hasValue(1);
	}

	@Test
	void shouldCountAWaiterOnlyOnceItIsInTheLine() {
		LocalLine line = this.lines.join(spec("counted"));
		assertThat(this.lines.waiting()).as("joined (subscribing), not yet in the line").isZero();
		Runnable watcher = () -> {
		};
		line.watch(watcher);
		assertThat(this.lines.waiting()).as("in the line").isEqualTo(1);
		line.unwatch(watcher);
		assertThat(this.lines.waiting()).as("out of the line, before it leaves the lines").isZero();
		this.lines.leave(line);
		assertThat(this.lines.waiting()).isZero();
	}

	@Test
	void shouldRemoveALineOnlyOnceNobodyJoinedItForTheLinger() throws InterruptedException {
		LockSpec spec = spec("lingering");
		this.lines.leave(this.lines.join(spec));
		Thread.sleep(600);
		this.lines.leave(this.lines.join(spec));
		// The first leave's linger is over before the second one's.
		Thread.sleep(500);

		assertThat(this.lines.size()).as("lines 1,100 ms after the first leave, 500 ms after the last").isEqualTo(1);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.lines.size() == 0);
	}

	@Test
	void shouldKeepALineThatSomeoneIsIn() throws InterruptedException {
		LockSpec spec = spec("held");
		this.lines.leave(this.lines.join(spec));
		LocalLine line = this.lines.join(spec);
		Thread.sleep(TimeUnit.NANOSECONDS.toMillis(LINGER_NANOS) + 200);

		assertThat(this.lines.size()).isEqualTo(1);
		this.lines.leave(line);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.lines.size() == 0);
	}

	static LockSpec spec(String key) {
		String lockKey = "p:{lines:" + key + "}";
		WaitMode waitMode = new WaitMode(WaitStrategy.POLLING, List.of(), 100_000_000);
		return new LockSpec(LockName.of("lines", key), lockKey, lockKey + ":released", LockKind.EXCLUSIVE, 0, lockKey,
				30_000, 0, false, false, 0, 5_000, waitMode, true, null);
	}

	/**
	 * The test's scheduler, counting the delayed tasks.
	 */
	private final class CountingScheduler implements Scheduler {

		@Override
		public Disposable schedule(Runnable task) {
			return LocalLinesTests.this.scheduler.schedule(task);
		}

		@Override
		public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
			LocalLinesTests.this.timerTasks.incrementAndGet();
			return LocalLinesTests.this.scheduler.schedule(task, delay, unit);
		}

		@Override
		public Worker createWorker() {
			return LocalLinesTests.this.scheduler.createWorker();
		}

	}

}
