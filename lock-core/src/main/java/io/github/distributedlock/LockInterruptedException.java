package io.github.distributedlock;

/**
 * Thrown when a thread is interrupted while it waits for a lock. The thread's interrupt
 * status is set again before this is thrown.
 */
public class LockInterruptedException extends LockException {

	public LockInterruptedException(LockName lockName, Exception cause) {
		super(lockName, "interrupted while waiting for the lock", cause);
	}

}
