package io.github.distributedlock.redis;

import java.time.Duration;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for a grant whose reply comes after the lease it granted has ended (Redis paused
 * longer than the lease): the caller never gets such a hold, since its lease is over
 * before its work starts. Found by the simulation (docs/design/simulation.md).
 */
class LateGrantTests {

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private LettuceConnectionFactory connectionFactory;

	@BeforeEach
	void connect() {
		redis.server().command("FLUSHALL");
		this.connectionFactory = (LettuceConnectionFactory) RedisConnections.standalone(redis.server());
	}

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Test
	void aGrantThatComesAfterItsLeaseIsTakenAgainWithALeaseCountedAnew() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest request = LockRequest.builder("late").key("grant").lease(Duration.ofMillis(300)).build();
			template.acquire(request).close();
			// Scripts wait out the pause: the attempt runs 600 ms after it was sent.
			redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
			try (LockHandle handle = template.acquire(request)) {
				assertThat(handle.remainingLease()).isGreaterThan(Duration.ofMillis(100));
				// Redis keeps the hold at least as long as the handle counts on it.
				List<?> keys = (List<?>) redis.server().command("KEYS", "*late:grant}");
				assertThat(keys).hasSize(1);
				Number pttl = (Number) redis.server().command("PTTL", String.valueOf(keys.get(0)));
				assertThat(pttl.longValue()).isGreaterThanOrEqualTo(handle.remainingLease().toMillis());
			}
		}
	}

	@Test
	void aTryOnceGrantedTooLateConfirmsItsHoldOnceAndLeavesNothingBehind() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest request = LockRequest.builder("late")
				.key("once")
				.lease(Duration.ofMillis(1_000))
				.waitTime(Duration.ZERO)
				.build();
			template.acquire(request).close();
			redis.server().command("CLIENT", "PAUSE", "1200", "WRITE");
			try (LockHandle handle = template.tryAcquire(request).orElseThrow()) {
				assertThat(handle.remainingLease()).isGreaterThan(Duration.ofMillis(500));
			}
			assertThat(lockKeys()).isEmpty();
		}
	}

	@Test
	void aGrantTooLateAfterTheWaitTimeIsReleased() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest request = LockRequest.builder("late")
				.key("over")
				.lease(Duration.ofMillis(300))
				.waitTime(Duration.ofMillis(200))
				.build();
			template.acquire(request).close();
			redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> template.acquire(request));
			assertThat(lockKeys()).as("a released late grant").isEmpty();
		}
	}

	@Test
	void aMultiLockGrantThatComesAfterItsLeaseIsTakenAgainWithALeaseCountedAnew() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			List<LockRequest> requests = List.of(
					LockRequest.builder("late").key("all-a").lease(Duration.ofMillis(300)).build(),
					LockRequest.builder("late").key("all-b").lease(Duration.ofMillis(300)).build());
			template.acquireAll(requests).close();
			redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
			try (LockHandle handle = template.acquireAll(requests)) {
				assertThat(handle.remainingLease()).isGreaterThan(Duration.ofMillis(100));
				List<?> keys = lockKeys();
				assertThat(keys).hasSize(2);
				for (Object key : keys) {
					Number pttl = (Number) redis.server().command("PTTL", String.valueOf(key));
					assertThat(pttl.longValue()).as("PTTL of %s", key)
						.isGreaterThanOrEqualTo(handle.remainingLease().toMillis());
				}
			}
		}
	}

	@Test
	void aMultiLockGrantTooLateAfterTheWaitTimeIsReleased() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			List<LockRequest> requests = List.of(LockRequest.builder("late")
				.key("all-c")
				.lease(Duration.ofMillis(300))
				.waitTime(Duration.ofMillis(200))
				.build(), LockRequest.builder("late").key("all-d").lease(Duration.ofMillis(300)).build());
			template.acquireAll(requests).close();
			redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> template.acquireAll(requests));
			assertThat(lockKeys()).as("released late grants").isEmpty();
		}
	}

	/**
	 * A re-entry granted late is sent again at once, not from the local line, where it
	 * would wait behind a thread that waits for the very lock this thread holds.
	 */
	@Test
	void aReentryGrantedLateIsNotStuckBehindALocalWaiterForItsOwnLock() throws Exception {
		ExecutorService other = Executors.newSingleThreadExecutor();
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest outerRequest = LockRequest.builder("late")
				.key("reentry")
				.lease(Duration.ofSeconds(5))
				.waitTime(Duration.ofSeconds(10))
				.build();
			LockRequest request = LockRequest.builder("late")
				.key("reentry")
				.lease(Duration.ofMillis(300))
				.waitTime(Duration.ofSeconds(2))
				.build();
			try (LockHandle outer = template.acquire(outerRequest)) {
				Future<?> waiter = other.submit(() -> {
					try {
						template.acquire(outerRequest).close();
					}
					catch (RuntimeException ex) {
						// times out: not what this test looks at
					}
				});
				long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
				while (template.waitingThreads() < 1 && System.nanoTime() < until) {
					Thread.sleep(5);
				}
				assertThat(template.waitingThreads()).isEqualTo(1);
				Thread.sleep(100);
				redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
				long start = System.nanoTime();
				Throwable failure = null;
				try (LockHandle inner = template.acquire(request)) {
					// fine
				}
				catch (RuntimeException ex) {
					failure = ex;
				}
				long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				assertThat(failure).as("re-entry after %d ms", tookMs).isNull();
				assertThat(tookMs).isLessThan(1_500);
				waiter.cancel(true);
			}
		}
		finally {
			other.shutdownNow();
		}
	}

	/**
	 * A re-entrant try-once granted late confirms its hold once, and leaves no hold
	 * nobody owns: the outer release frees the lock.
	 */
	@Test
	void aReentrantTryOnceGrantedTooLateLeavesNoExtraHold() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest request = LockRequest.builder("late")
				.key("inner")
				.lease(Duration.ofMillis(1_000))
				.waitTime(Duration.ZERO)
				.build();
			LockHandle outer = template
				.acquire(LockRequest.builder("late").key("inner").lease(Duration.ofSeconds(5)).build());
			redis.server().command("CLIENT", "PAUSE", "1200", "WRITE");
			boolean innerHeld = template.tryAcquire(request).map((inner) -> {
				inner.close();
				return true;
			}).orElse(false);
			List<?> keys = lockKeys();
			Object hash = keys.isEmpty() ? null : redis.server().command("HGETALL", String.valueOf(keys.get(0)));
			outer.close();
			assertThat(innerHeld).as("re-entrant tryAcquire while holding; hash %s", hash).isTrue();
			assertThat(lockKeys()).as("after the outer release").isEmpty();
		}
	}

	/**
	 * A re-entrant multi-lock granted late and released once its wait is over takes away
	 * only its own hold: the outer hold of the lock it re-entered keeps its count and its
	 * lease, and its release still frees the lock.
	 */
	@Test
	void aReentrantMultiLockGrantedTooLateLeavesTheOuterHoldAlone() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest outerRequest = LockRequest.builder("late").key("outer-a").lease(Duration.ofSeconds(10)).build();
			List<LockRequest> requests = List.of(LockRequest.builder("late")
				.key("outer-a")
				.lease(Duration.ofMillis(300))
				.waitTime(Duration.ofMillis(200))
				.build(), LockRequest.builder("late").key("outer-b").lease(Duration.ofMillis(300)).build());
			LockHandle outer = template.acquire(outerRequest);
			String key = template.lockKey(outerRequest.name());
			redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> template.acquireAll(requests));
			assertThat(String.valueOf(redis.server().command("HGET", key, "holds"))).as("holds of the outer lock")
				.isEqualTo("1");
			assertThat(((Number) redis.server().command("PTTL", key)).longValue()).as("the outer lease")
				.isGreaterThan(8_000);
			assertThat(outer.remainingLease()).isGreaterThan(Duration.ofSeconds(8));
			outer.close();
			assertThat(lockKeys()).as("after the outer release").isEmpty();
		}
	}

	/**
	 * A re-entrant multi-lock granted late and taken again counts its hold once: its
	 * release and then the outer release free every lock, and the outer lease is never
	 * shortened.
	 */
	@Test
	void aReentrantMultiLockGrantedLateAndTakenAgainCountsItsHoldOnce() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.connectionFactory).build()) {
			LockRequest outerRequest = LockRequest.builder("late").key("outer-c").lease(Duration.ofSeconds(10)).build();
			List<LockRequest> requests = List.of(
					LockRequest.builder("late").key("outer-c").lease(Duration.ofMillis(300)).build(),
					LockRequest.builder("late").key("outer-d").lease(Duration.ofMillis(300)).build());
			LockHandle outer = template.acquire(outerRequest);
			String key = template.lockKey(outerRequest.name());
			redis.server().command("CLIENT", "PAUSE", "600", "WRITE");
			try (LockHandle all = template.acquireAll(requests)) {
				assertThat(all.remainingLease()).isGreaterThan(Duration.ofMillis(100));
				assertThat(String.valueOf(redis.server().command("HGET", key, "holds"))).as("holds while both hold")
					.isEqualTo("2");
			}
			assertThat(String.valueOf(redis.server().command("HGET", key, "holds"))).as("holds of the outer lock")
				.isEqualTo("1");
			assertThat(((Number) redis.server().command("PTTL", key)).longValue()).as("the outer lease")
				.isGreaterThan(8_000);
			outer.close();
			assertThat(lockKeys()).as("after the outer release").isEmpty();
		}
	}

	private List<?> lockKeys() {
		return ((List<?>) redis.server().command("KEYS", "*late:*")).stream()
			.filter((key) -> !String.valueOf(key).contains(":requests") && !String.valueOf(key).contains("fence"))
			.toList();
	}

}
