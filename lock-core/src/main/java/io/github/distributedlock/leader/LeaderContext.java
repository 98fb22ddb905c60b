package io.github.distributedlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One term of leadership of a role by this instance: from the grant to the revocation. A
 * term never comes back: leading again is a new term, with a larger fencing token.
 * <p>
 * Thread-safe. Inside a {@link LeaderOnly @LeaderOnly} method, {@link #current()} returns
 * the term it runs in, so that writes can carry its fencing token.
 */
public interface LeaderContext {

	/**
	 * Return the role.
	 * @return the role
	 */
	String role();

	/**
	 * Return the id of this instance.
	 * @return the candidate's id
	 */
	String instanceId();

	/**
	 * Return the fencing token of this term, larger than every earlier term's of the role
	 * in any instance. Pass it to the resources the leader writes to, so that they can
	 * refuse a write from an older term.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return when this term began, by this instance's clock.
	 * @return the grant time
	 */
	Instant since();

	/**
	 * Return whether this term still holds: not revoked, its lock not found lost, and, by
	 * the local clock, more than the revoke margin left of its lease. Sends no Redis
	 * command, so it turns false on time even while Redis cannot be reached, at once when
	 * a paused process resumes past its lease, and as soon as the watchdog finds the lock
	 * gone or taken, before the election thread revokes the term.
	 * @return whether this instance still leads in this term
	 */
	boolean isLeader();

	/**
	 * Return the local, conservative estimate of the lease left, counted from when the
	 * last successful renewal was sent.
	 * @return the lease left, {@link Duration#ZERO} once it has run out
	 */
	Duration remainingLease();

	/**
	 * Give leadership up: the term is revoked at once, the lock released once the
	 * leader-only methods still running have ended, and this instance contends again
	 * after that. Does nothing if the term has ended.
	 */
	void yieldLeadership();

	/**
	 * Return the term that the calling thread's {@link LeaderOnly @LeaderOnly} method
	 * runs in.
	 * @return the current term
	 * @throws IllegalStateException outside a leader-only method
	 */
	static LeaderContext current() {
		return find().orElseThrow(() -> new IllegalStateException("No @LeaderOnly method runs on this thread"));
	}

	/**
	 * Return the term that the calling thread's {@link LeaderOnly @LeaderOnly} method
	 * runs in, if any.
	 * @return the current term, or empty outside a leader-only method
	 */
	static Optional<LeaderContext> find() {
		return Optional.ofNullable(LeaderSection.currentTerm());
	}

}
