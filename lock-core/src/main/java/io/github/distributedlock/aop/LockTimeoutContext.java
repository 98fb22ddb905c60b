package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.List;

import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A call of an annotated method whose lock was not acquired within the wait time.
 *
 * @see LockTimeoutHandler
 */
public final class LockTimeoutContext {

	private final Method method;

	private final Object target;

	private final @Nullable Object[] arguments;

	private final OnTimeout onTimeout;

	private final @Nullable Method fallback;

	private final List<LockName> locks;

	private final LockTimeoutException exception;

	LockTimeoutContext(Method method, Object target, @Nullable Object[] arguments, OnTimeout onTimeout,
			@Nullable Method fallback, List<LockName> locks, LockTimeoutException exception) {
		this.method = method;
		this.target = target;
		this.arguments = arguments;
		if (onTimeout == OnTimeout.DEFAULT) {
			throw new IllegalArgumentException("onTimeout must be settled, not DEFAULT");
		}
		this.onTimeout = onTimeout;
		this.fallback = fallback;
		this.locks = List.copyOf(locks);
		this.exception = exception;
	}

	/**
	 * Return the annotated method, as declared by the target's class.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return the bean the method was called on (not its proxy).
	 * @return the target
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * Return the arguments of the call.
	 * @return the arguments
	 */
	public @Nullable Object[] getArguments() {
		return this.arguments;
	}

	/**
	 * Return what the annotation asks for on timeout, with its default settled: never
	 * {@link OnTimeout#DEFAULT}.
	 * @return the timeout behaviour
	 */
	public OnTimeout getOnTimeout() {
		return this.onTimeout;
	}

	/**
	 * Return the fallback method, checked at startup, with {@link OnTimeout#FALLBACK}.
	 * @return the fallback method, or {@code null}
	 */
	public @Nullable Method getFallback() {
		return this.fallback;
	}

	/**
	 * Return the locks that were requested: one, or several for a key expression that
	 * gave a collection.
	 * @return the lock names
	 */
	public List<LockName> getLocks() {
		return this.locks;
	}

	/**
	 * Return the timeout.
	 * @return the exception from the lock template
	 */
	public LockTimeoutException getException() {
		return this.exception;
	}

}
