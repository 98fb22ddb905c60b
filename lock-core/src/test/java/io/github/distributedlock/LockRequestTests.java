package io.github.distributedlock;

import java.time.Duration;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockRequest} and {@link LockName} validation.
 */
class LockRequestTests {

	@Test
	void shouldLeaveUnsetSettingsToTheDefaults() {
		LockRequest request = LockRequest.of("server_access", "42");
		assertThat(request.name()).isEqualTo(LockName.of("server_access", "42"));
		assertThat(request.lease()).isNull();
		assertThat(request.waitTime()).isNull();
		assertThat(request.reentrant()).isNull();
	}

	@Test
	void shouldLetTheWorkContinueOnALostLeaseUnlessAskedAndKeepThePolicyInACopy() {
		assertThat(LockRequest.of("report", "1").onLeaseLost()).isEqualTo(LeaseLossPolicy.CONTINUE);
		LockRequest interrupting = LockRequest.builder("report").onLeaseLost(LeaseLossPolicy.INTERRUPT).build();
		assertThat(interrupting.toBuilder().key("2").build().onLeaseLost()).isEqualTo(LeaseLossPolicy.INTERRUPT);
		assertThat(interrupting.toString()).contains("onLeaseLost=INTERRUPT");
	}

	@Test
	void shouldRejectBlankNamesNamingTheLock() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("", "1")).withMessageContaining("scope");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("orders", " "))
			.withMessageContaining("Lock 'orders: '")
			.withMessageContaining("blank key");
	}

	@Test
	void shouldRejectHugeKeysWithAShortenedName() {
		String huge = "x".repeat(10_000);
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("orders", huge))
			.withMessageContaining("orders:" + "x".repeat(100) + "…(10000 chars)")
			.withMessageContaining("limit is 512");
	}

	@Test
	void shouldRejectLeasesBelowOneMillisecondAndNegativeWaits() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("orders").key("1").lease(Duration.ZERO).build())
			.withMessageContaining("orders:1")
			.withMessageContaining("lease");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("orders").key("1").lease(Duration.ofSeconds(-5)).build());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("orders").waitTime(Duration.ofMillis(-1)).build())
			.withMessageContaining("wait time");
	}

	@Test
	void shouldRefuseLeasesRedisCannotKeepNamingTheLock() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("orders").key("1").lease(Duration.ofDays(366)).build())
			.withMessageContaining("orders:1")
			.withMessageContaining("365 days");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("orders").key("1").lease(Duration.ofSeconds(Long.MAX_VALUE)).build())
			.withMessageContaining("orders:1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockDefaults.STANDARD.withLease(Duration.ofMillis(Long.MAX_VALUE)));
		assertThat(LockRequest.builder("orders").lease(LockRequest.MAX_LEASE).build().lease())
			.isEqualTo(LockRequest.MAX_LEASE);
	}

	@Test
	void shouldRefuseANegativeMinimumHoldOrOneLongerThanTheLeaseNamingTheLock() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("jobs").key("nightly").holdAtLeast(Duration.ofSeconds(-1)).build())
			.withMessage("Lock 'jobs:nightly': minimum hold must not be negative, but was PT-1S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.builder("jobs")
				.key("nightly")
				.lease(Duration.ofSeconds(10))
				.holdAtLeast(Duration.ofSeconds(30))
				.build())
			.withMessageContaining("Lock 'jobs:nightly': minimum hold PT30S is longer than the lease PT10S");
		assertThat(LockRequest.builder("jobs")
			.lease(Duration.ofSeconds(10))
			.holdAtLeast(Duration.ofSeconds(10))
			.build()
			.holdAtLeast()).isEqualTo(Duration.ofSeconds(10));
		assertThat(LockRequest.builder("jobs").holdAtLeast(Duration.ofMinutes(5)).build().holdAtLeast())
			.as("without an explicit lease, the default lease caps it when the lock is taken")
			.isEqualTo(Duration.ofMinutes(5));
		assertThat(LockRequest.of("jobs", null).holdAtLeast()).isNull();
	}

	@Test
	void shouldRefuseSettingsThatDoNotGoTogetherNamingTheLock() {
		Supplier<LockRequest.Builder> orders = () -> LockRequest.builder("orders").key("1");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().permits(0))
			.withMessage("permits must be at least 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().permits(3).fair(true).build())
			.withMessage("Lock 'orders:1': only exclusive (write) locks can be fair, not read locks or permits");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().mode(LockMode.READ).fair(true).build())
			.withMessage("Lock 'orders:1': only exclusive (write) locks can be fair, not read locks or permits");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().permits(3).mode(LockMode.READ).build())
			.withMessage("Lock 'orders:1': a semaphore (permits) has no read mode");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().owner(" ").build())
			.withMessage("Lock 'orders:1': a custom owner must be non-blank and at most 256 characters");
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().owner("o".repeat(257)).build())
			.withMessage("Lock 'orders:1': a custom owner must be non-blank and at most 256 characters");
		assertThat(orders.get().owner("o".repeat(256)).build().owner()).hasSize(256);
		assertThatIllegalArgumentException().isThrownBy(() -> orders.get().holdAtLeast(Duration.ofDays(366)).build())
			.withMessage("Lock 'orders:1': minimum hold must be at most 365 days, but was PT8784H");
	}

	@Test
	void shouldCopyAllSettingsToABuilder() {
		LockRequest request = LockRequest.builder("a")
			.key("b")
			.lease(Duration.ofSeconds(3))
			.waitIndefinitely()
			.waitStrategy(WaitStrategy.POLLING)
			.reentrant(false)
			.progressAwareTimeout(true)
			.holdAtLeast(Duration.ofSeconds(2))
			.build();
		LockRequest copy = request.toBuilder().build();
		assertThat(copy).hasToString(request.toString());
		assertThat(copy.waitTime()).isEqualTo(LockRequest.WAIT_INDEFINITELY);
		assertThat(copy.holdAtLeast()).isEqualTo(Duration.ofSeconds(2));
	}

}
