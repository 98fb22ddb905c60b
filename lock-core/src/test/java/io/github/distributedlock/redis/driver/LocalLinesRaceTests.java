package io.github.distributedlock.redis.driver;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.redis.core.LockSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Races joins and leaves against the linger check: a joined line must stay the map's line
 * until its waiter leaves, every line goes once nobody is in it, and a check the timer
 * refused is scheduled again by the next leave.
 */
class LocalLinesRaceTests {

	@ParameterizedTest
	@ValueSource(longs = { 0, 1_000, 50_000, 1_000_000 })
	void shouldNeverRemoveALineSomeoneIsIn(long lingerNanos) throws Exception {
		Scheduler scheduler = Schedulers.newParallel("race", 2);
		LocalLines lines = TestLines.of(new SchedulerPort(scheduler), lingerNanos);
		LockSpec spec = LocalLinesTests.spec("race");
		Map<?, ?> map = map(lines);
		AtomicInteger lost = new AtomicInteger();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			Thread thread = new Thread(() -> {
				for (int i = 0; i < 5_000; i++) {
					LocalLine line = lines.join(spec);
					if (i % 8 == 0) {
						try {
							TimeUnit.MICROSECONDS.sleep(i % 50);
						}
						catch (InterruptedException ex) {
							return;
						}
					}
					if (map.get(spec.queueId()) != line) {
						lost.incrementAndGet();
					}
					lines.leave(line);
				}
			});
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(lost).hasValue(0);
		await().atMost(Duration.ofSeconds(5)).until(() -> lines.size() == 0);
		lines.close();
		scheduler.dispose();
	}

	@Test
	void shouldRemoveALineAfterTheTimerRejectedOnce() {
		Scheduler scheduler = Schedulers.newSingle("reject");
		AtomicBoolean reject = new AtomicBoolean(true);
		Scheduler flaky = new Scheduler() {

			@Override
			public Disposable schedule(Runnable task) {
				return scheduler.schedule(task);
			}

			@Override
			public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
				if (reject.getAndSet(false)) {
					throw new RejectedExecutionException("busy");
				}
				return scheduler.schedule(task, delay, unit);
			}

			@Override
			public Worker createWorker() {
				return scheduler.createWorker();
			}

		};
		LocalLines lines = TestLines.of(new SchedulerPort(flaky), TimeUnit.MILLISECONDS.toNanos(50));
		LockSpec spec = LocalLinesTests.spec("rejected");
		LocalLine first = lines.join(spec);
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> lines.leave(first));
		lines.leave(lines.join(spec));
		await().atMost(Duration.ofSeconds(3)).until(() -> lines.size() == 0);
		scheduler.dispose();
	}

	private static Map<?, ?> map(LocalLines lines) throws Exception {
		Field field = LocalLines.class.getDeclaredField("lines");
		field.setAccessible(true);
		return (Map<?, ?>) field.get(lines);
	}

}
