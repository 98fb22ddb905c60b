package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A template closed while callers wait fails every one of them with a
 * {@link LockAccessException}, as {@code close()} promises, even when the lock is free by
 * then: a waiter behind the head in the local line, and a reactive waiter whose first
 * attempt was in flight when the line closed. Both took the lock after the close when
 * {@code Waiting} first came in (found by an adversarial review).
 */
class CloseWhileWaitingTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private ExecutorService executor;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.factory = RedisConnections.standalone(redis.server());
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void disconnect() {
		this.executor.shutdownNow();
		this.factory.destroy();
	}

	@Test
	void shouldFailTheWaiterBehindTheHeadWhenTheLockIsFreeByThen() throws Exception {
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.factory).build()) {
			RedisLockTemplate template = RedisLockTemplate.builder(this.factory).build();
			holder.acquire(request().lease(Duration.ofSeconds(30)).build());
			String key = holder.lockKey(LockName.of("closing", "1"));
			Future<LockHandle> head = this.executor
				.submit(() -> template.acquire(request().waitTime(Duration.ofSeconds(20)).build()));
			// The head filed its request: it sleeps until the holder's 30 s lease.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> Long.valueOf(1).equals(redis.server().command("ZCARD", LockKeys.requests(key))));
			Future<LockHandle> behind = this.executor
				.submit(() -> template.acquire(request().waitTime(Duration.ofSeconds(20)).build()));
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 2);
			// The lock goes without a message, as when a lease ends.
			redis.server().command("DEL", key);
			template.close();
			assertThat(failure(head)).as("the head").isInstanceOf(LockAccessException.class);
			assertThat(failure(behind)).as("the waiter behind it").isInstanceOf(LockAccessException.class);
		}
	}

	@Test
	void shouldFailAReactiveWaiterWhoseFirstAttemptWasInFlight() throws Exception {
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.factory).build()) {
			ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(this.factory).build();
			holder.acquire(request().lease(Duration.ofMillis(1_500)).build());
			redis.server().command("CLIENT", "PAUSE", "800", "WRITE");
			CompletableFuture<ReactiveLockHandle> waiter = template
				.acquire(request().waitTime(Duration.ofSeconds(5)).build())
				.toFuture();
			Thread.sleep(300);
			template.close();
			Object outcome;
			try {
				outcome = waiter.get(8, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				outcome = ex.getCause();
			}
			assertThat(outcome).as("the waiter after close()").isInstanceOf(LockAccessException.class);
		}
	}

	private static Throwable failure(Future<LockHandle> waiter) throws Exception {
		try {
			return new AssertionError("acquired after close: " + waiter.get(10, TimeUnit.SECONDS));
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
	}

	private static LockRequest.Builder request() {
		return LockRequest.builder("closing").key("1");
	}

}
