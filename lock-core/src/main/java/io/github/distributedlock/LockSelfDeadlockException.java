package io.github.distributedlock;

/**
 * Thrown when a non-reentrant lock is requested by the owner that already holds it, or a
 * reader asks for the write lock. Waiting would never end, so this fails at once.
 */
public class LockSelfDeadlockException extends LockException {

	public LockSelfDeadlockException(LockName lockName) {
		super(lockName, "already held by this owner (thread), and the request is not reentrant or asks to "
				+ "upgrade a read lock to the write lock; waiting for it would deadlock", null);
	}

}
