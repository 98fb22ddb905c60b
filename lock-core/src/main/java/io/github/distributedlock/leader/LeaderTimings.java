package io.github.distributedlock.leader;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.LockRequest;

/**
 * How a {@link LeaderInitiator} holds and contends for a role's lock.
 *
 * The watchdog renews the lease when two thirds of it are left, and the term is revoked
 * when no more than the revoke margin is left: the margin must be positive (with none, a
 * leader would be revoked only once another instance may already lead), less than half
 * the lease, and leave {@link #RENEWAL_ROOM} between the renewal and the revocation, so
 * that a renewal can get through. A lease of {@link #MIN_LEASE} or less leaves no such
 * margin.
 *
 * @param lease the lease of the role's lock, renewed every third of it by the watchdog:
 * how long a dead leader keeps the role; longer than {@link #MIN_LEASE}
 * @param revokeMargin how long before the lease's end, by the local clock, a leader whose
 * renewals failed revokes itself; positive, less than half the lease and at most two
 * thirds of it less {@link #RENEWAL_ROOM}
 * @param waitTime how long one attempt waits for the lock before it is tried again; a
 * release wakes it at once
 * @param retryInterval how long to wait after Redis could not be reached before trying
 * again
 */
public record LeaderTimings(Duration lease, Duration revokeMargin, Duration waitTime, Duration retryInterval) {

	/**
	 * The time the revoke margin must leave a renewal: from when the watchdog renews,
	 * with two thirds of the lease left, to the revocation. Five times the longest a
	 * renewal took on a loaded two-core machine, where terms of a 30 ms lease with a 9 ms
	 * margin flapped.
	 */
	public static final Duration RENEWAL_ROOM = Duration.ofMillis(100);

	/**
	 * The lease that leaves no positive revoke margin beside {@link #RENEWAL_ROOM}: a
	 * leader's lease must be longer.
	 */
	public static final Duration MIN_LEASE = RENEWAL_ROOM.multipliedBy(3).dividedBy(2);

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
		if (!LockRequest.isValidLease(lease) || lease.compareTo(MIN_LEASE) <= 0) {
			throw new IllegalArgumentException("Leader lease must be longer than " + MIN_LEASE.toMillis()
					+ " ms and at most " + LockRequest.MAX_LEASE.toDays() + " days, but was " + lease
					+ ": the watchdog renews it when two thirds of it are left, and a renewal needs " + RENEWAL_ROOM
					+ " from then before a positive revoke margin");
		}
		if (revokeMargin.compareTo(Duration.ZERO) <= 0) {
			throw new IllegalArgumentException("Leader revoke margin must be positive, but was " + revokeMargin
					+ ": with none, a leader is revoked only once its lease has run out, when another instance may "
					+ "already lead");
		}
		if (revokeMargin.multipliedBy(2).compareTo(lease) >= 0) {
			throw new IllegalArgumentException(
					"Leader revoke margin must be less than half the lease " + lease + ", but was " + revokeMargin);
		}
		if (revokeMargin.compareTo(maxRevokeMargin(lease)) > 0) {
			throw new IllegalArgumentException("Leader revoke margin must be at most " + maxRevokeMargin(lease)
					+ " for the lease " + lease + ", but was " + revokeMargin
					+ ": the watchdog renews when two thirds of the lease are left, and a renewal needs " + RENEWAL_ROOM
					+ " from then before the revocation");
		}
		if (waitTime.isNegative()) {
			throw new IllegalArgumentException("Leader wait time must not be negative, but was " + waitTime);
		}
		if (retryInterval.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException("Leader retry interval must be at least 1 ms, but was " + retryInterval);
		}
	}

	/**
	 * Return the longest revoke margin that leaves {@link #RENEWAL_ROOM} between the
	 * renewal, due when two thirds of the lease are left, and the revocation; the margin
	 * must also be less than half the lease.
	 * @param lease the lease
	 * @return two thirds of the lease less {@link #RENEWAL_ROOM}
	 */
	public static Duration maxRevokeMargin(Duration lease) {
		return lease.multipliedBy(2).dividedBy(3).minus(RENEWAL_ROOM);
	}

}
