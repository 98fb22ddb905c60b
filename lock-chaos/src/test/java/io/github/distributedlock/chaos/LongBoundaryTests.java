package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.distributedlock.redis.ProtocolTimings;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The boundaries of {@link BoundaryFaultTests} whose constants are too long for the short
 * profile: waiters frozen around the refile interval and the request line lifetime (15 s
 * and 30 s), and holders renewed by the watchdog with a lease of 9 s frozen around its
 * period, the two thirds of a lease a renewal has to arrive, and the lease. Run with
 * {@code -Pchaos-long}.
 */
@Tag("long")
class LongBoundaryTests {

	@Test
	void shouldKeepMutualExclusionWhenAWaiterIsFrozenAroundTheRefileIntervalAndTheRequestLapse() throws Exception {
		Map<String, Duration> constants = new LinkedHashMap<>();
		constants.put("request refile", ProtocolTimings.refile());
		constants.put("request line lifetime", ProtocolTimings.requestLapse());
		BoundaryFaultTests.freezeWaiters("boundary (long): SIGSTOP waiter around refile and request lapse",
				BoundaryFaultTests.LEASE_MILLIS, BoundaryFaultTests.TIMEOUT_MILLIS, constants);
	}

	@Test
	void shouldKeepMutualExclusionWhenAHolderWithALongerRenewedLeaseIsFrozenAroundTheWatchdogPeriod() throws Exception {
		Duration lease = Duration.ofSeconds(9);
		Map<String, Duration> constants = new LinkedHashMap<>();
		constants.put("watchdog period (lease/3)", ProtocolTimings.watchdogPeriod(lease));
		constants.put("renewal grace (2/3 lease)", ProtocolTimings.watchdogGrace(lease));
		constants.put("lease", lease);
		BoundaryFaultTests.freezeHolders("boundary (long): SIGSTOP holder renewed by the watchdog, 9 s lease",
				lease.toMillis(), 2000, true, constants);
	}

}
