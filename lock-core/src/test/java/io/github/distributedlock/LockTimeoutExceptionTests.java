package io.github.distributedlock;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockTimeoutException}: its message, and the same timeout re-timed for
 * a multi-lock that waited for the lock after taking others.
 */
class LockTimeoutExceptionTests {

	private static final LockName NAME = LockName.of("orders", "42");

	@Test
	void aTimeoutNamesTheHoldersLeaseOrItsReason() {
		assertThat(new LockTimeoutException(NAME, Duration.ofMillis(300), Duration.ofMillis(700)))
			.hasMessageEndingWith("not acquired after waiting 300 ms; the holder's lease had about 700 ms left");
		assertThat(new LockTimeoutException(NAME, Duration.ofMillis(300), null, "Redis granted it"))
			.hasMessageEndingWith("not acquired after waiting 300 ms; Redis granted it");
	}

	@Test
	void aTimeoutAfterWaitingLongerKeepsItsLockHolderAndReason() {
		LockTimeoutException late = new LockTimeoutException(NAME, Duration.ofMillis(300), null, "Redis granted it")
			.afterWaiting(Duration.ofMillis(1_200));
		assertThat(late).hasMessageEndingWith("not acquired after waiting 1200 ms; Redis granted it");
		assertThat(late.getLockName()).isEqualTo(NAME);
		assertThat(late.getWaited()).hasMillis(1_200);
		assertThat(late.getHolderRemainingLease()).isNull();
		LockTimeoutException held = new LockTimeoutException(NAME, Duration.ofMillis(300), Duration.ofMillis(700))
			.afterWaiting(Duration.ofMillis(1_200));
		assertThat(held)
			.hasMessageEndingWith("not acquired after waiting 1200 ms; the holder's lease had about 700 ms left");
		assertThat(held.getHolderRemainingLease()).hasMillis(700);
	}

}
