package io.github.distributedlock;

import java.time.Duration;

/**
 * Callbacks on the life of locks, for metrics and logging.
 * <p>
 * Called on the thread concerned, synchronously: implementations must be fast,
 * thread-safe and must not throw (an exception is logged and ignored).
 */
public interface LockListener {

	/**
	 * A lock was acquired.
	 * @param context the new hold; {@link LockContext#waitedFor()} is the time it took
	 */
	default void acquired(LockContext context) {
	}

	/**
	 * A lock was not acquired within the wait time (or at the single try of a zero wait).
	 * @param name the lock
	 * @param waited how long the caller waited
	 */
	default void notAcquired(LockName name, Duration waited) {
	}

	/**
	 * A hold was released normally.
	 * @param context the hold
	 * @param heldFor how long it was held
	 */
	default void released(LockContext context, Duration heldFor) {
	}

	/**
	 * A hold was found lost: a renewal or extension found it expired or taken, renewals
	 * failed until its lease would have ended, or its release came too late.
	 * @param context the hold
	 */
	default void leaseLost(LockContext context) {
	}

	/**
	 * A release did not get through, because Redis could not be reached or failed: the
	 * lock stays taken until its lease ends, and nobody renews it any more. This says
	 * nothing of the work, which may have run wholly under the lock.
	 * @param context the hold
	 * @param failure why the release failed
	 */
	default void releaseFailed(LockContext context, LockAccessException failure) {
	}

}
