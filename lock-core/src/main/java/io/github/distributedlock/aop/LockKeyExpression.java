package io.github.distributedlock.aop;

import org.jspecify.annotations.Nullable;

/**
 * A prepared key expression of one annotated method, evaluated for each call.
 * Implementations must be thread-safe.
 *
 * @see LockKeyResolver
 */
@FunctionalInterface
public interface LockKeyExpression {

	/**
	 * Compute the key, or keys, of one call.
	 * @param call the call
	 * @return the key; a collection or array means one lock per element; {@code null} is
	 * refused by the caller
	 */
	@Nullable Object evaluate(LockKeyRoot call);

}
