package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.Optional;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.test.ManagedRedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that is down long enough for Lettuce's own reconnect back-off to grow to
 * seconds: once it is back, lock calls work again within about the capped delay
 * ({@code distributed-lock.reconnect-delay.max}), not after Lettuce's next attempt.
 */
class ReconnectAfterOutageTests {

	/**
	 * Between two of Lettuce's own attempts (about 8.2 s and 16.4 s into the outage), far
	 * from both.
	 */
	private static final Duration OUTAGE = Duration.ofSeconds(10);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@AfterEach
	void restart() {
		ManagedRedisServer server = redis.managedServer();
		if (!server.isRunning()) {
			server.start();
		}
	}

	@Test
	void shouldTakeLocksSoonAfterRedisIsBackFromALongOutage() {
		TestRedis.contextRunner(redis.server()).run((context) -> {
			LockTemplate locks = context.getBean(LockTemplate.class);
			assertThat(tryOnce(locks)).isTrue();
			ManagedRedisServer server = redis.managedServer();
			long down = System.nanoTime();
			server.stop();
			Thread.sleep(OUTAGE.toMillis());
			server.start();
			long up = System.nanoTime();
			Duration outage = Duration.ofNanos(up - down);
			Duration uncapped = lettucesOwnWaitAfter(outage);
			long deadline = up + uncapped.multipliedBy(3).toNanos();
			while (!tryOnce(locks) && System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			Duration recovery = Duration.ofNanos(System.nanoTime() - up);
			assertThat(recovery)
				.as("time from Redis answering again to the first lock taken, after %s down; Lettuce's own "
						+ "back-off would next try in %s", outage, uncapped)
				.isLessThan(uncapped.dividedBy(2));
		});
	}

	private static boolean tryOnce(LockTemplate locks) {
		LockRequest request = LockRequest.builder("reconnect").key("k").waitTime(Duration.ZERO).build();
		try {
			Optional<LockHandle> handle = locks.tryAcquire(request);
			handle.ifPresent(LockHandle::close);
			return handle.isPresent();
		}
		catch (LockAccessException ex) {
			return false;
		}
	}

	/**
	 * Return how long after the end of an outage Lettuce's default delay would make its
	 * next attempt: attempts follow one another by {@link Delay#exponential()}'s delays
	 * from the moment the connection was lost.
	 */
	private static Duration lettucesOwnWaitAfter(Duration outage) {
		Delay delay = Delay.exponential();
		Duration attemptAt = Duration.ZERO;
		for (long attempt = 1;; attempt++) {
			attemptAt = attemptAt.plus(delay.createDelay(attempt));
			if (attemptAt.compareTo(outage) > 0) {
				return attemptAt.minus(outage);
			}
		}
	}

}
