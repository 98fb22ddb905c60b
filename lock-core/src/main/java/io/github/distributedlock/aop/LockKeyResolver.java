package io.github.distributedlock.aop;

import java.lang.reflect.Method;

/**
 * Turns the {@code key} of a {@link io.github.distributedlock.DistributedLock
 * &#64;DistributedLock} into something that computes the key of each call. The default is
 * {@link SpelLockKeyResolver}; define a bean of this type to use another expression
 * language.
 * <p>
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface LockKeyResolver {

	/**
	 * Prepare the key expression of one annotated method. Called once per method and
	 * target class, when the application context starts.
	 * @param expression the expression, never empty
	 * @param method the annotated method
	 * @param targetClass the class of the bean the method is called on
	 * @return the prepared expression, evaluated for each call
	 * @throws IllegalArgumentException if the expression is invalid for this method; the
	 * message says what is wrong and fails the startup
	 */
	LockKeyExpression prepare(String expression, Method method, Class<?> targetClass);

}
