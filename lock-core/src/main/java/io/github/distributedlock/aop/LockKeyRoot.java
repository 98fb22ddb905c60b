package io.github.distributedlock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * One call of an annotated method, the {@code #root} object of key expressions.
 */
public final class LockKeyRoot {

	private final Method method;

	private final @Nullable Object[] args;

	private final Object target;

	private final Class<?> targetClass;

	LockKeyRoot(Method method, @Nullable Object[] args, Object target, Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/**
	 * Return the method called.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return the name of the method called.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * Return the arguments of the call.
	 * @return the arguments
	 */
	public @Nullable Object[] getArgs() {
		return this.args;
	}

	/**
	 * Return the bean the method is called on.
	 * @return the target
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * Return the class of the bean the method is called on.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
