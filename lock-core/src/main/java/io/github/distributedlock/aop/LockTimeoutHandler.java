package io.github.distributedlock.aop;

import org.jspecify.annotations.Nullable;

/**
 * Decides what an annotated method returns, or throws, when its lock was not acquired
 * within the wait time. The default is {@link DefaultLockTimeoutHandler}, which does what
 * {@link io.github.distributedlock.DistributedLock#onTimeout()} asks; define a bean of
 * this type to change that, for example to translate the timeout into an exception of
 * your own.
 * <p>
 * Implementations must be thread-safe. They run on the caller's thread, holding no lock.
 */
@FunctionalInterface
public interface LockTimeoutHandler {

	/**
	 * Handle a timeout.
	 * @param timeout the call that timed out
	 * @return the value the annotated method returns to its caller
	 * @throws Throwable what the annotated method throws to its caller
	 */
	@Nullable Object handleTimeout(LockTimeoutContext timeout) throws Throwable;

}
