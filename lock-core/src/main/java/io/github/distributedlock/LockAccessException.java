package io.github.distributedlock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when Redis cannot be reached or answers with an error, or the lock service is
 * shut down. The cause, if any, is the Redis client's exception.
 */
public class LockAccessException extends LockException {

	public LockAccessException(LockName lockName, String message, @Nullable Throwable cause) {
		super(lockName, message, cause);
	}

}
