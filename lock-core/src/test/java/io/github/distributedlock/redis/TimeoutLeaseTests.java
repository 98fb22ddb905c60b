package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A timeout tells the holder's remaining lease whenever any attempt saw it, also for a
 * waiter that timed out behind the head of its local line and never made an attempt of
 * its own.
 */
class TimeoutLeaseTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory factory;

	private RedisLockTemplate holder;

	private RedisLockTemplate waiters;

	private ExecutorService executor;

	@BeforeEach
	void start() {
		this.factory = RedisConnections.standalone(redis.server());
		this.holder = RedisLockTemplate.builder(this.factory).build();
		this.waiters = RedisLockTemplate.builder(this.factory).build();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
		this.waiters.close();
		this.holder.close();
		this.factory.destroy();
	}

	@Test
	void shouldTellTheHoldersLeaseToWaitersThatTimedOutBehindTheHead() throws Exception {
		try (LockHandle held = this.holder.acquire(LockRequest.builder("busy").key("1").lease(LONG_LEASE).build())) {
			// The head waits long; the others line up behind it and give up first.
			Future<?> head = this.executor.submit(() -> this.waiters
				.tryAcquire(LockRequest.builder("busy").key("1").waitTime(Duration.ofSeconds(3)).build()));
			Thread.sleep(300);
			List<Future<LockTimeoutException>> behind = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				behind
					.add(this.executor.submit(() -> catchThrowableOfType(LockTimeoutException.class, () -> this.waiters
						.acquire(LockRequest.builder("busy").key("1").waitTime(Duration.ofMillis(500)).build()))));
			}
			for (Future<LockTimeoutException> waiter : behind) {
				LockTimeoutException timeout = waiter.get(10, TimeUnit.SECONDS);
				assertThat(timeout).isNotNull();
				assertThat(timeout.getHolderRemainingLease()).as("the holder's lease in %s", timeout.getMessage())
					.isNotNull()
					.isBetween(Duration.ofSeconds(25), LONG_LEASE);
			}
			head.cancel(true);
		}
	}

	@Test
	void shouldTellTheHoldersLeaseToReactiveWaitersThatTimedOutBehindTheHead() throws Exception {
		try (ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(this.factory).build();
				LockHandle held = this.holder.acquire(LockRequest.builder("busy").key("2").lease(LONG_LEASE).build())) {
			reactive.acquire(LockRequest.builder("busy").key("2").waitTime(Duration.ofSeconds(3)).build())
				.subscribe(null, (ex) -> {
				});
			Thread.sleep(300);
			for (int i = 0; i < 4; i++) {
				LockTimeoutException timeout = catchThrowableOfType(LockTimeoutException.class,
						() -> reactive
							.acquire(LockRequest.builder("busy").key("2").waitTime(Duration.ofMillis(500)).build())
							.block(Duration.ofSeconds(10)));
				assertThat(timeout).isNotNull();
				assertThat(timeout.getHolderRemainingLease()).as("the holder's lease in %s", timeout.getMessage())
					.isNotNull()
					.isBetween(Duration.ofSeconds(25), LONG_LEASE);
			}
		}
	}

	private static final Duration LONG_LEASE = LEASE;

}
