package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.test.RedisProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A caller hears of its acquisition's end once what the run sent is answered
 * ({@code SettledRun}), on both templates: a waiter that times out finds its hand-off
 * request withdrawn from Redis. Redis holds writes back ({@code CLIENT PAUSE WRITE}) from
 * before the wait time ends until after, so that the withdrawal waits in Redis.
 */
class SettledEndTests {

	private static final long WAIT_MILLIS = 400;

	private static final long PAUSE_FROM_MILLIS = 250;

	private static final long PAUSE_MILLIS = 400;

	private final ScheduledExecutorService pauses = Executors.newSingleThreadScheduledExecutor();

	private RedisProcess redis;

	private LettuceConnectionFactory factory;

	@BeforeEach
	void start() {
		this.redis = RedisProcess.launch();
		this.factory = RedisConnections.standalone(this.redis.host(), this.redis.port(), Duration.ofSeconds(2));
	}

	@AfterEach
	void stop() {
		this.pauses.shutdownNow();
		this.factory.destroy();
		this.redis.close();
	}

	@Test
	void aBlockingWaiterThatTimesOutHasWithdrawnItsRequest() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory).build()) {
			assertWithdrawnOnTimeout(template, template::acquire);
		}
	}

	@Test
	void aReactiveWaiterThatTimesOutHasWithdrawnItsRequest() {
		try (RedisLockTemplate holder = RedisLockTemplate.builder(this.factory).build();
				ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(this.factory).build()) {
			assertWithdrawnOnTimeout(holder, (request) -> template.acquire(request).block());
		}
	}

	/**
	 * With plain calls (Jedis), a caller waits for its run's last commands as it would
	 * for its own calls, and an interrupt ends that wait, as it would end theirs: here a
	 * withdrawal that Redis holds back until the client's read timeout (2 s).
	 */
	@Test
	void aBlockingCallerOnPlainCallsStopsWaitingForItsLastCommandsAtAnInterrupt() throws Exception {
		JedisConnectionFactory jedis = RedisConnections.jedis(this.redis);
		try (RedisLockTemplate template = RedisLockTemplate.builder(jedis).build()) {
			LockRequest held = LockRequest.builder("settled").key("2").lease(Duration.ofSeconds(30)).build();
			try (LockHandle holding = template.acquire(held)) {
				LockRequest waiting = held.toBuilder().waitTime(Duration.ofSeconds(20)).build();
				CompletableFuture<RuntimeException> failure = new CompletableFuture<>();
				Thread waiter = new Thread(() -> {
					try {
						template.acquire(waiting).close();
						failure.complete(null);
					}
					catch (RuntimeException ex) {
						failure.complete(ex);
					}
				});
				waiter.start();
				Thread.sleep(300);
				this.redis.command("CLIENT", "PAUSE", "4000", "WRITE");
				Thread.sleep(100);
				// The first interrupt cancels; the withdrawal it sends waits in Redis.
				long interrupted = System.nanoTime();
				waiter.interrupt();
				while (waiter.isAlive() && System.nanoTime() - interrupted < TimeUnit.SECONDS.toNanos(10)) {
					Thread.sleep(100);
					waiter.interrupt();
				}
				long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupted);
				this.redis.command("CLIENT", "UNPAUSE");
				assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(LockInterruptedException.class);
				assertThat(took).as("milliseconds from the first interrupt to the end").isLessThan(1000);
			}
		}
		finally {
			jedis.destroy();
		}
	}

	private void assertWithdrawnOnTimeout(RedisLockTemplate holder, Function<LockRequest, ?> waiter) {
		LockRequest held = LockRequest.builder("settled").key("1").lease(Duration.ofSeconds(30)).build();
		try (LockHandle holding = holder.acquire(held)) {
			LockRequest waiting = LockRequest.builder("settled")
				.key("1")
				.waitTime(Duration.ofMillis(WAIT_MILLIS))
				.build();
			this.pauses.schedule(() -> this.redis.command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "WRITE"),
					PAUSE_FROM_MILLIS, TimeUnit.MILLISECONDS);
			// On a thread of its own: the holder's thread would re-enter.
			CompletableFuture<?> waited = CompletableFuture.supplyAsync(() -> waiter.apply(waiting));
			assertThatExceptionOfType(CompletionException.class).isThrownBy(waited::join)
				.withCauseInstanceOf(LockTimeoutException.class);
			assertThat(requests()).as("hand-off requests left in Redis when the caller heard of its timeout").isZero();
		}
	}

	private long requests() {
		long count = 0;
		for (Object key : (List<?>) this.redis.command("KEYS", "*:requests")) {
			count += (Long) this.redis.command("ZCARD", String.valueOf(key));
		}
		return count;
	}

}
