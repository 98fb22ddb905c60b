package io.github.distributedlock.chaos.input;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Leases and wait times that are negative, tiny or absurdly long: refused with a message
 * that names the lock, or mapped to something safe.
 */
class DurationInputTests {

	private static final Duration CENTURY = ChronoUnit.CENTURIES.getDuration();

	@RegisterExtension
	static RedisServerExtension redis = RedisServerExtension.dedicated();

	private static LettuceConnectionFactory factory;

	private static RedisLockTemplate template;

	private static RedisLockTemplate otherProcess;

	@BeforeAll
	static void start() {
		factory = Connections.standalone(redis.server().port());
		template = RedisLockTemplate.builder(factory).build();
		otherProcess = RedisLockTemplate.builder(factory).build();
	}

	@AfterAll
	static void stop() {
		template.close();
		otherProcess.close();
		factory.destroy();
	}

	@Test
	void shouldRefuseLeasesBelowAMillisecondAndNegativeWaitsNamingTheLock() {
		for (Duration lease : new Duration[] { Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999),
				Duration.ofSeconds(Long.MIN_VALUE) }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> LockRequest.builder("bad").key("lease").lease(lease).build())
				.withMessageStartingWith("Lock 'bad:lease': lease must be")
				.withMessageContaining("1 ms");
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("bad").key("wait").waitTime(Duration.ofNanos(-1)).build())
			.withMessageStartingWith("Lock 'bad:wait': wait time must not be negative");
		try (LockHandle held = template.acquire(LockRequest.builder("bad").key("extend").build())) {
			assertThatIllegalArgumentException().isThrownBy(() -> held.extend(Duration.ofMillis(-5)))
				.withMessageStartingWith("Lock 'bad:extend': lease must be");
		}
	}

	@Test
	void shouldHoldALockForTheLongestLeaseAllowed() {
		Duration longest = LockRequest.MAX_LEASE;
		try (LockHandle held = template.acquire(LockRequest.builder("long").key("year").lease(longest).build())) {
			long ttl = (Long) redis.server().command("PTTL", template.lockKey(LockName.of("long", "year")));
			assertThat(Duration.ofMillis(ttl)).isGreaterThan(longest.minusMinutes(1)).isLessThanOrEqualTo(longest);
			assertThat(held.remainingLease()).isGreaterThan(longest.minusMinutes(1));
		}
		assertThat(template.isLocked("long", "year")).isFalse();
	}

	@Test
	void shouldRefuseLongerLeasesNamingTheLockAndLeavingNothingBehind() {
		for (Duration lease : new Duration[] { LockRequest.MAX_LEASE.plusDays(1), CENTURY,
				ChronoUnit.MILLENNIA.getDuration(), Duration.ofMillis(Long.MAX_VALUE),
				Duration.ofSeconds(Long.MAX_VALUE) }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> template.acquire(LockRequest.builder("absurd").key("lease").lease(lease).build()))
				.as("lease %s", lease)
				.withMessageStartingWith("Lock 'absurd:lease': lease must be");
			assertThat(redis.server().command("PTTL", template.lockKey(LockName.of("absurd", "lease"))))
				.as("nothing left behind after %s", lease)
				.isEqualTo(-2L);
			assertThatIllegalArgumentException().isThrownBy(() -> LockDefaults.STANDARD.withLease(lease))
				.withMessageStartingWith("Default lease must be");
		}
		try (LockHandle held = template
			.acquire(LockRequest.builder("absurd").key("extend").lease(Duration.ofSeconds(10)).build())) {
			for (Duration lease : new Duration[] { CENTURY, Duration.ofMillis(Long.MAX_VALUE),
					Duration.ofSeconds(Long.MAX_VALUE) }) {
				assertThatIllegalArgumentException().isThrownBy(() -> held.extend(lease))
					.withMessageStartingWith("Lock 'absurd:extend': lease must be");
			}
			long ttl = (Long) redis.server().command("PTTL", template.lockKey(LockName.of("absurd", "extend")));
			assertThat(ttl).as("the old lease stands").isPositive().isLessThanOrEqualTo(10_000);
			assertThat(held.isHeld()).isTrue();
		}
	}

	@Test
	void shouldWaitIndefinitelyForWaitTimesBeyondACentury() throws Exception {
		for (Duration wait : new Duration[] { Duration.ofNanos(Long.MAX_VALUE), Duration.ofSeconds(Long.MAX_VALUE),
				CENTURY.multipliedBy(2), CENTURY.minusDays(1) }) {
			LockHandle held = otherProcess.acquire(LockRequest.builder("wait").key("forever").build());
			CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
				long start = System.nanoTime();
				try (LockHandle next = template
					.acquire(LockRequest.builder("wait").key("forever").waitTime(wait).build())) {
					return System.nanoTime() - start;
				}
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> template.waitingThreads() == 1);
			Thread.sleep(300);
			assertThat(waited).as("still waiting with %s", wait).isNotDone();
			held.close();
			assertThat(TimeUnit.NANOSECONDS.toMillis(waited.get(10, TimeUnit.SECONDS)))
				.as("got it once released, waiting %s", wait)
				.isGreaterThanOrEqualTo(300);
		}
	}

}
