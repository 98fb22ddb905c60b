package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A progress-aware wait restarts each time the lock changes hands, so it may last far
 * longer than its wait time: the blocking caller must wait for as long as the lock keeps
 * changing hands, and time out only once it stops, not at its wait time plus the grace it
 * gives a wait that never restarts ({@code CallerWait.GRACE_NANOS}, 10 s).
 */
class ProgressAwareBoundTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	@RegisterExtension
	final ConnectedRedis connected = new ConnectedRedis(redis);

	@Test
	void shouldKeepWaitingPastTheGraceWhileTheLockChangesHands() throws Exception {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connected.connectionFactory()).build()) {
			String key = template.lockKey(LockName.of("progress", "long"));
			redis.server().command("HSET", key, "owner", "someone-else", "holds", "1", "token", "1");
			redis.server().command("PEXPIRE", key, "30000");
			CountDownLatch started = new CountDownLatch(1);
			// A new holder every 150 ms for 11 s, never leaving the lock free.
			Future<?> handoffs = this.connected.executor().submit(() -> {
				started.countDown();
				for (int token = 2; token <= 75; token++) {
					Thread.sleep(150);
					redis.server().command("HSET", key, "token", Integer.toString(token));
					redis.server().command("PUBLISH", LockKeys.releaseChannel(key), Integer.toString(token));
				}
				return null;
			});
			assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
			long start = System.nanoTime();
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.acquire(LockRequest.builder("progress")
					.key("long")
					.waitTime(Duration.ofMillis(600))
					.progressAwareTimeout(true)
					.build()));
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			handoffs.get(5, TimeUnit.SECONDS);
			assertThat(waited).as("waited while the lock changed hands for 11 s").isGreaterThan(Duration.ofSeconds(11));
			redis.server().command("DEL", key);
		}
	}

}
