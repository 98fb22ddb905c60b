package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release that names a fair waiter while its attempt to keep its place is in flight:
 * the waiter must try again at once, as a blocking fair waiter does, not sleep until its
 * next heartbeat.
 */
class ReactiveFairWakeUpTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private ReactiveRedisLockTemplate template;

	private RedisLockTemplate blocking;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.factory = RedisConnections.standalone(redis.server());
		this.template = ReactiveRedisLockTemplate.builder(this.factory)
			.fairWaiterTimeout(Duration.ofSeconds(9))
			.build();
		this.blocking = RedisLockTemplate.builder(this.factory).build();
	}

	@AfterEach
	void disconnect() {
		this.template.close();
		this.blocking.close();
		this.factory.destroy();
	}

	private static LockRequest.Builder fair(String key) {
		return LockRequest.builder("fair").key(key).fair(true);
	}

	@Test
	void aReleaseHeardDuringAnAttemptWakesTheFairWaiter() throws Exception {
		for (int i = 0; i < 6; i++) {
			String key = "wake" + i;
			LockHandle holder = this.blocking.acquire(fair(key).build());
			CompletableFuture<ReactiveLockHandle> waiter = this.template
				.acquire(fair(key).waitTime(Duration.ofSeconds(20)).build())
				.toFuture();
			await().until(() -> queueLength(key) == 1);
			// Heartbeats every 3 s: wait for one, and hold it in Redis with the release
			// behind it, so that the release's message comes while it is in flight.
			Thread.sleep(3_000 - 100);
			redis.server().command("CLIENT", "PAUSE", "400", "WRITE");
			Thread releaser = new Thread(() -> {
				sleepQuietly(200);
				holder.close();
			});
			releaser.start();
			releaser.join();
			long released = System.nanoTime();
			ReactiveLockHandle handle = waiter.get(10, TimeUnit.SECONDS);
			long wokenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
			handle.release().block(Duration.ofSeconds(5));
			assertThat(wokenMillis).as("round %d: ms from the release to the waiter's hold (heartbeat 3000 ms)", i)
				.isLessThan(1_500);
		}
	}

	private long queueLength(String key) {
		Object length = redis.server().command("ZCARD", this.template.lockKey(fair(key).build()) + ":queue");
		return ((Number) length).longValue();
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
