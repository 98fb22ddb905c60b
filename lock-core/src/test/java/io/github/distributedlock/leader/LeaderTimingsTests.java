package io.github.distributedlock.leader;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The leader timings that can hold a term, and those refused because they cannot.
 */
class LeaderTimingsTests {

	private static final Duration WAIT = Duration.ofMillis(100);

	@Test
	void shouldRefuseAMarginOfZero() {
		// Revoked only once the lease has run out: another instance may lead by then.
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> timings(Duration.ofSeconds(10), Duration.ZERO))
			.withMessageContaining("revoke margin")
			.withMessageContaining("positive");
	}

	@Test
	void shouldRefuseALeaseTooShortForARenewal() {
		// 1 ms with no margin: granted 234 times in 3 s on one instance.
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> timings(Duration.ofMillis(1), Duration.ZERO))
			.withMessageContaining("lease")
			.withMessageContaining("longer than 150 ms");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> timings(Duration.ofMillis(150), Duration.ofNanos(1)))
			.withMessageContaining("longer than 150 ms");
	}

	@Test
	void shouldRefuseAMarginThatLeavesARenewalLessThanItsRoom() {
		// Renewed when 200 ms are left: a margin over 100 ms leaves the renewal less than
		// 100 ms.
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> timings(Duration.ofMillis(300), Duration.ofMillis(101)))
			.withMessageContaining("two thirds")
			.withMessageContaining("PT0.1S");
		assertThatNoException().isThrownBy(() -> timings(Duration.ofMillis(300), Duration.ofMillis(100)));
	}

	@Test
	void shouldRefuseAMarginOfHalfTheLease() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> timings(Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.withMessageContaining("less than half the lease");
		assertThatNoException().isThrownBy(() -> timings(Duration.ofSeconds(2), Duration.ofMillis(999)));
	}

	@Test
	void shouldAcceptTheStandardTimings() {
		assertThatNoException()
			.isThrownBy(() -> timings(LeaderTimings.STANDARD.lease(), LeaderTimings.STANDARD.revokeMargin()));
		assertThatNoException().isThrownBy(() -> timings(Duration.ofMillis(151), Duration.ofNanos(500_000)));
	}

	private static LeaderTimings timings(Duration lease, Duration margin) {
		return new LeaderTimings(lease, margin, WAIT, WAIT);
	}

}
