package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.redis.core.LockSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Races joins and leaves against the linger check: a joined queue must stay the map's
 * queue until its waiter leaves, and every queue goes once nobody is in it.
 */
class WaitQueuesRaceTests {

	@ParameterizedTest
	@ValueSource(longs = { 0, 1_000, 50_000, 1_000_000 })
	void shouldNeverRemoveAQueueSomeoneIsIn(long lingerNanos) throws Exception {
		WaitQueues queues = new WaitQueues(null, lingerNanos);
		LockSpec spec = WaitQueuesTests.spec("race");
		AtomicInteger lost = new AtomicInteger();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			Thread thread = new Thread(() -> {
				for (int i = 0; i < 5_000; i++) {
					WaitQueue queue = queues.join(spec);
					if (ThreadLocalRandom.current().nextInt(8) == 0) {
						Thread.onSpinWait();
						try {
							TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(50));
						}
						catch (InterruptedException ex) {
							return;
						}
					}
					if (queues.peek(spec.queueId()) != queue) {
						lost.incrementAndGet();
					}
					queues.leave(queue);
				}
			});
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(lost).hasValue(0);
		await().atMost(Duration.ofSeconds(5)).until(() -> queues.size() == 0);
		queues.close();
	}

}
