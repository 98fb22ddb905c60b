package io.github.distributedlock.redis.reactive;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reactive template's port on a shared scheduler: once the template closed it, a
 * release that {@code DriverCommands.sendUntilAnswered} sends again is sent no more.
 */
class ReactorLockPortTests {

	@Test
	void shouldRunNoTaskScheduledAfterItClosed() throws InterruptedException {
		ReactorLockPort port = new ReactorLockPort(null, Schedulers.parallel(), () -> null);
		CountDownLatch before = new CountDownLatch(1);
		port.schedule(before::countDown, TimeUnit.MILLISECONDS.toNanos(1));
		assertThat(before.await(5, TimeUnit.SECONDS)).as("a task scheduled while open runs").isTrue();

		port.close();
		CountDownLatch after = new CountDownLatch(1);
		port.schedule(after::countDown, 0);
		port.schedule(after::countDown, TimeUnit.MILLISECONDS.toNanos(1));
		assertThat(after.await(200, TimeUnit.MILLISECONDS)).as("a task scheduled once closed runs").isFalse();
	}

}
