package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.chaos.support.Connections;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A lease shorter than a round trip to Redis: each grant's reply comes after the lease it
 * set has ended, so the caller never holds the lock, and the wait ends on its wait time.
 * The timeout says why, in both templates, for a single lock and a multi-lock, instead of
 * naming a holder that does not exist. A lease longer than the round trip is granted
 * through the same network, first: the first call's set-up (connect, load the scripts) is
 * then over, and each late grant takes one round trip.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseShorterThanARoundTripTests {

	/** Each way: a round trip takes at least twice this. */
	private static final Duration LATENCY = Duration.ofMillis(10);

	/** Long enough for several grants, each a round trip, after a first call's set-up. */
	private static final Duration WAIT = Duration.ofSeconds(1);

	private RedisProcess redis;

	private ChaosProxy proxy;

	private LettuceConnectionFactory factory;

	@BeforeAll
	void start() throws Exception {
		this.redis = RedisServers.launch();
		this.proxy = ChaosProxy.start(this.redis.port());
		this.proxy.latency(LATENCY);
		this.factory = Connections.standalone(this.proxy.port());
	}

	@AfterAll
	void stop() {
		if (this.factory != null) {
			this.factory.destroy();
		}
		if (this.proxy != null) {
			this.proxy.close();
		}
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@Test
	void theBlockingTemplateSaysTheLeaseIsShorterThanARoundTrip() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory).build()) {
			try (LockHandle held = template.acquire(request("blocking", 1_000))) {
				assertThat(held.isHeld()).as("a lease of 1 s through the same network").isTrue();
			}
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.acquire(request("blocking", 5)))
				.satisfies((timeout) -> assertSaysTheLeaseIsTooShort(timeout, "5 ms"));
		}
	}

	@Test
	void theReactiveTemplateSaysTheLeaseIsShorterThanARoundTrip() {
		try (ReactiveRedisLockTemplate template = ReactiveRedisLockTemplate.builder(this.factory).build()) {
			ReactiveLockHandle held = template.acquire(request("reactive", 1_000)).block(Duration.ofSeconds(5));
			assertThat(held).as("a lease of 1 s through the same network").isNotNull();
			held.release().block(Duration.ofSeconds(5));
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.acquire(request("reactive", 5)).block(Duration.ofSeconds(5)))
				.satisfies((timeout) -> assertSaysTheLeaseIsTooShort(timeout, "5 ms"));
		}
	}

	@Test
	void aMultiLockNamesTheLockWithTheShortestLease() {
		try (RedisLockTemplate template = RedisLockTemplate.builder(this.factory).build()) {
			template.acquireAll(List.of(request("multi-long", 1_000), request("multi-short", 1_000))).close();
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.acquireAll(List.of(request("multi-long", 1_000), request("multi-short", 5))))
				.satisfies((timeout) -> {
					assertThat(timeout.getLockName().key()).isEqualTo("multi-short");
					assertSaysTheLeaseIsTooShort(timeout, "5 ms");
				});
		}
	}

	private static void assertSaysTheLeaseIsTooShort(LockTimeoutException timeout, String lease) {
		assertThat(timeout).hasMessageContaining("Redis granted it")
			.hasMessageContaining("after its lease of " + lease + " had ended")
			.hasMessageContaining("give it a lease longer than a round trip to Redis");
		assertThat(timeout.getWaited()).isGreaterThanOrEqualTo(WAIT);
	}

	private static LockRequest request(String key, long leaseMillis) {
		return LockRequest.builder("round-trip").key(key).lease(Duration.ofMillis(leaseMillis)).waitTime(WAIT).build();
	}

}
