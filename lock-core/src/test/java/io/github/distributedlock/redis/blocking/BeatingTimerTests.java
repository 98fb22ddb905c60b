package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The blocking port's timer: its beat is kept while tasks are being set, and stops once
 * none is; no task runs before it is due.
 */
class BeatingTimerTests {

	// A beat long enough that the checks right after a task is set run before it.
	private final BeatingTimer timer = new BeatingTimer((runnable) -> {
		Thread thread = new Thread(runnable, "beating-timer-test");
		thread.setDaemon(true);
		return thread;
	}, TimeUnit.SECONDS.toNanos(3));

	@AfterEach
	void stop() {
		this.timer.shutdownNow();
	}

	@Test
	void shouldRunATaskWhenDueAndNotBefore() throws Exception {
		AtomicLong ranAt = new AtomicLong();
		CountDownLatch ran = new CountDownLatch(1);
		long setAt = System.nanoTime();
		this.timer.schedule(() -> {
			ranAt.set(System.nanoTime());
			ran.countDown();
		}, 120, TimeUnit.MILLISECONDS);
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(ranAt.get() - setAt).as("ran no earlier than due").isGreaterThanOrEqualTo(120_000_000L);
	}

	@Test
	void shouldKeepABeatAheadOfALaterTaskAndStopItOnceNoTaskIsSet() {
		ScheduledFuture<?> later = this.timer.schedule(() -> {
		}, 1, TimeUnit.HOURS);
		// The task and the beat, which is due first: a task set later than the beat
		// becomes no first due, so it wakes no thread.
		assertThat(this.timer.getQueue()).hasSize(2);
		assertThat(this.timer.getQueue().peek()).isNotSameAs(later);
		// Nothing set since: the beat stops, and the thread waits for the task alone.
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(this.timer.getQueue()).hasSize(1));
		assertThat(this.timer.getQueue().peek()).isSameAs(later);
		// A task set again starts it again.
		this.timer.schedule(() -> {
		}, 1, TimeUnit.HOURS);
		assertThat(this.timer.getQueue()).hasSize(3);
	}

	@Test
	void shouldLetTheTimerEndOnceShutDownWithItsTasksRun() throws Exception {
		CountDownLatch ran = new CountDownLatch(1);
		this.timer.schedule(ran::countDown, 100, TimeUnit.MILLISECONDS);
		this.timer.shutdown();
		assertThat(ran.await(10, TimeUnit.SECONDS)).as("a task set before the shutdown ran").isTrue();
		assertThat(this.timer.awaitTermination(20, TimeUnit.SECONDS)).as("the beat kept the timer alive").isTrue();
	}

}
