package io.github.distributedlock;

/**
 * Thrown when a non-reentrant lock is requested by the owner that already holds it. Waiting
 * would never end, so this fails at once.
 */
public class LockSelfDeadlockException extends LockException {

	public LockSelfDeadlockException(LockName lockName) {
		super(lockName, "already held by this owner (thread) and the request is not reentrant; "
				+ "waiting for it would deadlock", null);
	}

}
