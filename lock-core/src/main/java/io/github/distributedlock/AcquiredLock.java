package io.github.distributedlock;

import java.time.Duration;

/**
 * What a hold knows of the lock it acquired without asking Redis: its name, its fencing
 * token, how the acquisition went and how much of the lease is left.
 * <p>
 * It is what the blocking {@link LockContext} and the reactive
 * {@link ReactiveLockContext} have in common; each adds an {@code isHeld()} that asks
 * Redis in its own way. Every method here answers from what this process knows: none
 * sends a command or waits for Redis, and any thread may call them.
 */
public interface AcquiredLock {

	/**
	 * Return the name of the lock.
	 * @return the lock name
	 */
	LockName name();

	/**
	 * Return the fencing token of this hold. Tokens of one lock increase strictly with
	 * each new holder, across processes and across the blocking and reactive templates,
	 * so a protected resource can reject writes that carry a token lower than one it has
	 * already seen.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return whether the lock was taken when first tried, so that the caller had to wait.
	 * @return whether we waited
	 */
	boolean waited();

	/**
	 * Return how long it took to get the lock, from the first attempt to success.
	 * @return the time spent acquiring
	 */
	Duration waitedFor();

	/**
	 * Return how many acquire commands were sent to Redis before the lock was ours.
	 * @return the number of attempts, at least 1
	 */
	int attempts();

	/**
	 * Return a conservative local estimate of the lease left, measured from the moment
	 * the latest command Redis confirmed for it was sent: the winning acquire, a renewal
	 * or an extension. The lease in Redis is at least this long. For a hold of several
	 * locks, it is the shortest of their leases.
	 * @return the remaining lease, {@link Duration#ZERO} once it has run out or the hold
	 * was released
	 */
	Duration remainingLease();

}
