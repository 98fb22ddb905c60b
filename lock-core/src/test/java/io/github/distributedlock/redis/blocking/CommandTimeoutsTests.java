package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.redis.driver.LockPort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command timeouts of the blocking port: each script still ends at its own timeout,
 * never before, while the scripts of one timeout share one timer task.
 */
class CommandTimeoutsTests {

	private final CountingTimer timer = new CountingTimer();

	@AfterEach
	void stopTimer() {
		this.timer.shutdownNow();
	}

	@Test
	void shouldEndAScriptNotAnsweredAtItsTimeoutAndNotBefore() throws Exception {
		CommandTimeouts timeouts = new CommandTimeouts(this.timer, Duration.ofMillis(150));
		AtomicLong endedAt = new AtomicLong();
		CountDownLatch ended = new CountDownLatch(1);
		long sentAt = System.nanoTime();
		timeouts.start(() -> {
			endedAt.set(System.nanoTime());
			ended.countDown();
		});
		assertThat(ended.await(10, TimeUnit.SECONDS)).as("the script ended at its timeout").isTrue();
		assertThat(endedAt.get() - sentAt).as("ended no earlier than its timeout")
			.isGreaterThanOrEqualTo(Duration.ofMillis(150).toNanos());
	}

	@Test
	void shouldSetOneTimerForTheScriptsSentWithinOneTimeout() {
		CommandTimeouts timeouts = new CommandTimeouts(this.timer, Duration.ofSeconds(30));
		AtomicInteger expired = new AtomicInteger();
		for (int i = 0; i < 1000; i++) {
			timeouts.start(expired::incrementAndGet).cancel();
		}
		// A timer per script woke the timer's thread at every send.
		assertThat(this.timer.scheduled).as("timer tasks set for 1,000 scripts").hasValue(1);
		assertThat(expired).hasValue(0);
	}

	@Test
	void shouldEndOnlyTheScriptsNotAnsweredEachAtItsOwnTimeout() throws Exception {
		CommandTimeouts timeouts = new CommandTimeouts(this.timer, Duration.ofMillis(200));
		List<String> ended = new ArrayList<>();
		CountDownLatch last = new CountDownLatch(1);
		long sentAt = System.nanoTime();
		timeouts.start(() -> record(ended, "first"));
		LockPort.Cancellable answered = timeouts.start(() -> record(ended, "answered"));
		Thread.sleep(100);
		long thirdSentAt = System.nanoTime();
		AtomicLong thirdEndedAt = new AtomicLong();
		timeouts.start(() -> {
			thirdEndedAt.set(System.nanoTime());
			record(ended, "third");
			last.countDown();
		});
		answered.cancel();
		assertThat(last.await(10, TimeUnit.SECONDS)).isTrue();
		synchronized (ended) {
			assertThat(ended).containsExactly("first", "third");
		}
		assertThat(thirdEndedAt.get() - thirdSentAt).as("the third ended at its own timeout, not the first's")
			.isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
		assertThat(thirdEndedAt.get() - sentAt).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
	}

	@Test
	void shouldStillEndTheScriptsSentBeforeTheTimerShutDown() throws Exception {
		// As the port's close does: timers set before still run, new ones are refused.
		CommandTimeouts timeouts = new CommandTimeouts(this.timer, Duration.ofMillis(200));
		CountDownLatch first = new CountDownLatch(1);
		CountDownLatch second = new CountDownLatch(1);
		timeouts.start(first::countDown);
		Thread.sleep(100);
		timeouts.start(second::countDown);
		this.timer.shutdown();
		assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
		// Its timer, set after the first ended, is refused by the closed executor.
		assertThat(second.await(10, TimeUnit.SECONDS)).as("the script sent second ended after the close").isTrue();
	}

	private static void record(List<String> ended, String script) {
		synchronized (ended) {
			ended.add(script);
		}
	}

	/**
	 * The blocking port's timer, counting the tasks set on it.
	 */
	private static final class CountingTimer extends ScheduledThreadPoolExecutor {

		private final AtomicInteger scheduled = new AtomicInteger();

		CountingTimer() {
			super(1);
			setRemoveOnCancelPolicy(true);
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
			this.scheduled.incrementAndGet();
			return super.schedule(command, delay, unit);
		}

	}

}
