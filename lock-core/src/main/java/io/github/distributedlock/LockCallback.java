package io.github.distributedlock;

import org.jspecify.annotations.Nullable;

/**
 * Work to run while holding a lock.
 *
 * @param <T> the result type
 * @see LockTemplate#execute(LockRequest, LockCallback)
 */
@FunctionalInterface
public interface LockCallback<T extends @Nullable Object> {

	/**
	 * Run the protected work.
	 * @param context what is known about the hold: the fencing token, whether we waited
	 * @return the result, passed on to the caller of {@code execute}
	 */
	T doInLock(LockContext context);

}
