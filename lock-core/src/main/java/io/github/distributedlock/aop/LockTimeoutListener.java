package io.github.distributedlock.aop;

/**
 * Told when the lock of an annotated method times out, before the
 * {@link LockTimeoutHandler} runs; for metrics of skipped calls and fallbacks.
 * <p>
 * Implementations must be fast, thread-safe and must not throw (an exception is logged
 * and ignored).
 */
@FunctionalInterface
public interface LockTimeoutListener {

	/**
	 * A lock of an annotated method was not acquired within the wait time.
	 * @param timeout the call that timed out
	 */
	void timedOut(LockTimeoutContext timeout);

}
