package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the checker found in one run's history.
 *
 * @param attempts acquire operations invoked
 * @param acquisitions acquisitions that succeeded
 * @param timeouts acquisitions that timed out (certainly not acquired)
 * @param indeterminate acquisitions that failed with an error (maybe acquired in Redis)
 * @param leaseLostReleases releases that reported a lost lease
 * @param exclusionViolations overlapping holds that no expired lease and no data loss
 * explains
 * @param overlapsByExpiry overlapping holds whose earlier lease had provably ended, by
 * the holders' clocks
 * @param overlapsByRedisClock overlapping holds that the holders' clocks could not
 * separate but whose tokens (Redis's grant times) are at least a lease apart
 * @param overlapsByDataLoss overlapping holds that span a fault losing Redis data
 * @param overlapsSameOwner overlapping holds of one custom owner (in several processes or
 * threads): one holder, whose holds Redis counts
 * @param writes writes the fenced store received
 * @param staleWritesRejected writes the fenced store rejected because a newer holder had
 * written
 * @param staleWritesAccepted writes accepted although a holder that started later had
 * already written: must be empty
 * @param tokenOrderViolations holds whose token was not above that of every hold acquired
 * before they started
 * @param ghostReentries holds that a thread got with the token of its own previous hold:
 * a hold of its own that it had given up on (an acquire whose reply was lost, or a
 * release that never reached Redis) was still in Redis
 * @param longestGhostChain how long the longest run of one thread's holds with one token
 * lasted, the lock staying taken for everyone else meanwhile
 * @param livenessViolations locks of killed or frozen holders not acquired again within
 * lease + margin
 * @param faults per fault kind, how many were injected
 * @param recoveries per fault kind, how long after each fault every key was acquired
 * again (faults after which some key never was are missing here and reported as liveness
 * violations)
 */
record CheckReport(long attempts, long acquisitions, long timeouts, long indeterminate, long leaseLostReleases,
		List<String> exclusionViolations, long overlapsByExpiry, long overlapsByRedisClock, long overlapsByDataLoss,
		long overlapsSameOwner, long writes, long staleWritesRejected, List<String> staleWritesAccepted,
		List<String> tokenOrderViolations, long ghostReentries, Duration longestGhostChain,
		List<String> livenessViolations, Map<String, Integer> faults, Map<String, List<Duration>> recoveries) {

	int faultCount() {
		return this.faults.values().stream().mapToInt(Integer::intValue).sum();
	}

}
