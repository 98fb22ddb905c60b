package io.github.distributedlock.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ReflectionUtils;

/**
 * Handles a timeout as {@link io.github.distributedlock.DistributedLock#onTimeout()}
 * asks: throw the {@link io.github.distributedlock.LockTimeoutException}, skip the method
 * (returning {@code null} or an empty {@code Optional}), or call the fallback method on
 * the target bean. Override one of the protected methods to change one behaviour.
 * Thread-safe.
 */
public class DefaultLockTimeoutHandler implements LockTimeoutHandler {

	@Override
	public @Nullable Object handleTimeout(LockTimeoutContext timeout) throws Throwable {
		return switch (timeout.getOnTimeout()) {
			// DEFAULT is settled at startup and never reaches a handler.
			case THROW, DEFAULT -> fail(timeout);
			case SKIP -> skip(timeout);
			case FALLBACK -> fallBack(timeout);
		};
	}

	/**
	 * Handle {@code onTimeout = THROW}: throw the timeout.
	 * @param timeout the call that timed out
	 * @return never returns normally
	 * @throws Throwable the timeout
	 */
	protected @Nullable Object fail(LockTimeoutContext timeout) throws Throwable {
		throw timeout.getException();
	}

	/**
	 * Handle {@code onTimeout = SKIP}: return nothing, as an empty {@code Optional} (or
	 * {@code OptionalInt}, {@code OptionalLong}, {@code OptionalDouble}) where the method
	 * returns one, else {@code null}.
	 * @param timeout the call that timed out
	 * @return the empty value
	 */
	protected @Nullable Object skip(LockTimeoutContext timeout) {
		Class<?> type = timeout.getMethod().getReturnType();
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (type == OptionalInt.class) {
			return OptionalInt.empty();
		}
		if (type == OptionalLong.class) {
			return OptionalLong.empty();
		}
		if (type == OptionalDouble.class) {
			return OptionalDouble.empty();
		}
		return null;
	}

	/**
	 * Handle {@code onTimeout = FALLBACK}: call the fallback method on the target with
	 * the same arguments, plus the timeout if it takes one.
	 * @param timeout the call that timed out
	 * @return what the fallback returns
	 * @throws Throwable what the fallback throws
	 */
	protected @Nullable Object fallBack(LockTimeoutContext timeout) throws Throwable {
		Method fallback = timeout.getFallback();
		if (fallback == null) {
			throw new IllegalStateException("No fallback method for " + timeout.getMethod());
		}
		@Nullable Object[] arguments = timeout.getArguments();
		if (fallback.getParameterCount() > arguments.length) {
			arguments = Arrays.copyOf(arguments, arguments.length + 1);
			arguments[arguments.length - 1] = timeout.getException();
		}
		ReflectionUtils.makeAccessible(fallback);
		try {
			return fallback.invoke(timeout.getTarget(), arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}
