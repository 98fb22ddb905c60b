package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker's judgement of holds renewed by the watchdog, which only Redis's record of
 * the expiries it set can clear ({@link RedisMonitor}). The times are those of a
 * clean-clone CI run's {@code BoundaryFaultTests}: a renewed holder frozen past its
 * lease, then two holders after it while it still believed it held the lock.
 */
class HistoryCheckerTests {

	private static final long LEASE_MILLIS = 1500;

	/** The frozen holder's grant, in Redis time (µs): its token. */
	private static final long FROZEN_GRANT = 1_795_369_279_764_838L;

	@Test
	void shouldClearARenewedHoldWhoseLeaseEndedBeforeTheNextGrantThoughLaterExpiriesWereSet() {
		Hold frozen = renewedHold("w2", FROZEN_GRANT, 0, 1712);
		Hold between = renewedHold("w3", FROZEN_GRANT + 1_530_000, 1530, 1700);
		Hold last = renewedHold("w1", FROZEN_GRANT + 1_708_455, 1708, 1980);
		RedisMonitor monitor = RedisMonitor.recorded(RedisMonitor.lockKey(BoundaryFaultTests.KEY),
				List.of(expiry(frozen.token() + 20, LEASE_MILLIS), expiry(between.token() + 20, LEASE_MILLIS),
						// The release of the hold in between reserved the lock for the
						// last one's request: an expiry of the claim.
						expiry(between.token() + 170_000, 2000), expiry(last.token() + 20, LEASE_MILLIS)));
		CheckReport report = check(List.of(frozen, between, last), monitor);
		assertThat(report.exclusionViolations()).isEmpty();
		assertThat(report.overlapsByRedisClock()).as("overlaps cleared by Redis's record").isEqualTo(2);
	}

	@Test
	void shouldReportARenewedHoldWhoseRenewalOutlivedTheNextGrant() {
		Hold renewed = renewedHold("w2", FROZEN_GRANT, 0, 1712);
		Hold last = renewedHold("w1", FROZEN_GRANT + 1_708_455, 1708, 1980);
		RedisMonitor monitor = RedisMonitor.recorded(RedisMonitor.lockKey(BoundaryFaultTests.KEY),
				List.of(expiry(renewed.token() + 20, LEASE_MILLIS),
						// A renewal at 500 ms: the lease then ran to 2,000 ms.
						expiry(renewed.token() + 500_000, LEASE_MILLIS), expiry(last.token() + 20, LEASE_MILLIS)));
		CheckReport report = check(List.of(renewed, last), monitor);
		assertThat(report.exclusionViolations()).singleElement()
			.asString()
			.startsWith("overlap: w2")
			.contains("Redis set expiries [+0.020 ms for 1500 ms, +500.000 ms for 1500 ms]");
	}

	@Test
	void shouldReportARenewedHoldWhoseRenewalOutlivedAGrantInBetween() {
		Hold renewed = renewedHold("w2", FROZEN_GRANT, 0, 1712);
		Hold between = renewedHold("w3", FROZEN_GRANT + 1_530_000, 1530, 1700);
		Hold last = renewedHold("w1", FROZEN_GRANT + 1_708_455, 1708, 1980);
		RedisMonitor monitor = RedisMonitor.recorded(RedisMonitor.lockKey(BoundaryFaultTests.KEY),
				List.of(expiry(renewed.token() + 20, LEASE_MILLIS), expiry(renewed.token() + 500_000, LEASE_MILLIS),
						expiry(between.token() + 20, LEASE_MILLIS), expiry(last.token() + 20, LEASE_MILLIS)));
		CheckReport report = check(List.of(renewed, between, last), monitor);
		assertThat(report.exclusionViolations()).hasSize(2)
			.allSatisfy((violation) -> assertThat(violation).startsWith("overlap: w2"));
	}

	private static CheckReport check(List<Hold> holds, RedisMonitor monitor) {
		return new HistoryChecker(holds, List.of(), List.of(), Duration.ofSeconds(1), monitor).check(new History(),
				(key) -> true);
	}

	/**
	 * A hold renewed by the watchdog, from its holders' clock readings in ms.
	 */
	private static Hold renewedHold(String worker, long token, long okMillis, long endMillis) {
		return new Hold(worker + "-0-11", worker, BoundaryFaultTests.KEY, token, millis(okMillis - 1), millis(okMillis),
				millis(LEASE_MILLIS), millis(endMillis), Event.OK, null, true);
	}

	private static long millis(long millis) {
		return Duration.ofMillis(millis).toNanos();
	}

	private static long[] expiry(long redisMicros, long millis) {
		return new long[] { redisMicros, millis };
	}

}
