package io.github.distributedlock.leader;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.LockRequest;

/**
 * How a {@link LeaderInitiator} holds and contends for a role's lock.
 *
 * @param lease the lease of the role's lock, renewed every third of it by the watchdog:
 * how long a dead leader keeps the role
 * @param revokeMargin how long before the lease's end, by the local clock, a leader whose
 * renewals failed revokes itself; less than half the lease
 * @param waitTime how long one attempt waits for the lock before it is tried again; a
 * release wakes it at once
 * @param retryInterval how long to wait after Redis could not be reached before trying
 * again
 */
public record LeaderTimings(Duration lease, Duration revokeMargin, Duration waitTime, Duration retryInterval) {

	/**
	 * A 10 s lease, revoked 2 s before its end, attempts of 1 s and retries after 1 s.
	 */
	public static final LeaderTimings STANDARD = new LeaderTimings(Duration.ofSeconds(10), Duration.ofSeconds(2),
			Duration.ofSeconds(1), Duration.ofSeconds(1));

	public LeaderTimings {
		Objects.requireNonNull(lease, "lease must not be null");
		Objects.requireNonNull(revokeMargin, "revokeMargin must not be null");
		Objects.requireNonNull(waitTime, "waitTime must not be null");
		Objects.requireNonNull(retryInterval, "retryInterval must not be null");
		if (!LockRequest.isValidLease(lease)) {
			throw new IllegalArgumentException("Leader lease must be between 1 ms and " + LockRequest.MAX_LEASE.toDays()
					+ " days, but was " + lease);
		}
		// Renewals run every third of the lease, so the lease left dips to two thirds of
		// it
		// between them: a margin of half leaves a sixth for a renewal's round trip.
		if (revokeMargin.isNegative() || revokeMargin.multipliedBy(2).compareTo(lease) >= 0) {
			throw new IllegalArgumentException("Leader revoke margin must be at least 0 and less than half the lease "
					+ lease + ", but was " + revokeMargin);
		}
		if (waitTime.isNegative()) {
			throw new IllegalArgumentException("Leader wait time must not be negative, but was " + waitTime);
		}
		if (retryInterval.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException("Leader retry interval must be at least 1 ms, but was " + retryInterval);
		}
	}

}
