package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
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
 * Closing the reactive template while a fair waiter's attempt to keep its place is in
 * flight: the waiter must fail with {@link LockAccessException}, as one that sleeps does.
 */
class ReactiveFairCloseTests {

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
			.fairWaiterTimeout(Duration.ofMillis(300))
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
	void closeWhileAFairWaitersAttemptIsInFlightFailsTheWaiter() throws Exception {
		LockHandle holder = this.blocking.acquire(fair("close").build());
		try {
			CompletableFuture<ReactiveLockHandle> waiter = this.template
				.acquire(fair("close").waitTime(Duration.ofSeconds(8)).build())
				.toFuture();
			await().until(() -> queueLength("close") == 1);
			Thread.sleep(300);
			// Heartbeats every 100 ms: one is sent, and held by Redis, during the pause.
			redis.server().command("CLIENT", "PAUSE", "800", "WRITE");
			Thread.sleep(300);
			this.template.close();
			Throwable failure = null;
			try {
				ReactiveLockHandle handle = waiter.get(3, TimeUnit.SECONDS);
				handle.release().block(Duration.ofSeconds(5));
			}
			catch (ExecutionException ex) {
				failure = ex.getCause();
			}
			catch (java.util.concurrent.TimeoutException ex) {
				failure = ex;
			}
			assertThat(failure).as("the waiter after close()").isInstanceOf(LockAccessException.class);
		}
		finally {
			holder.close();
		}
	}

	private long queueLength(String key) {
		Object length = redis.server().command("ZCARD", this.template.lockKey(fair(key).build()) + ":queue");
		return ((Number) length).longValue();
	}

}
