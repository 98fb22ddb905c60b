package io.github.distributedlock;

import org.jspecify.annotations.Nullable;

/**
 * Base class of the exceptions thrown by the lock library. Each names the lock concerned.
 */
public abstract class LockException extends RuntimeException {

	private final LockName lockName;

	protected LockException(LockName lockName, String message, @Nullable Throwable cause) {
		super("Lock '" + lockName + "': " + message, cause);
		this.lockName = lockName;
	}

	/**
	 * Return the name of the lock this exception is about.
	 * @return the lock name
	 */
	public LockName getLockName() {
		return this.lockName;
	}

}
