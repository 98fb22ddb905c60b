package io.github.distributedlock.aop;

/**
 * Told when the lock of an annotated method times out, before the
 * {@link LockTimeoutHandler} runs; for metrics of skipped calls and fallbacks.
 * <p>
 * Told as well of the scope of every annotated method, before any call, so that it can
 * prepare for that scope: meters that exist at zero from the start can be charted and
 * alerted on before the first timeout.
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

	/**
	 * An annotated method locks in this scope. Told once per scope: for the beans created
	 * when the context starts, once they all are, and for a bean created later (lazy, or
	 * of a narrower scope), when it is. Does nothing by default.
	 * @param scope the scope of the method's lock
	 */
	default void scopeDeclared(String scope) {
	}

}
