package io.github.distributedlock.aop;

import java.lang.reflect.Method;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that a {@code @DistributedLock}, on them or on their class, applies
 * to.
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

	private final LockedMethods methods;

	DistributedLockPointcut(LockedMethods methods) {
		this.methods = methods;
		setClassFilter(new ClassFilter() {

			@Override
			public boolean matches(Class<?> clazz) {
				return methods.isCandidateClass(clazz);
			}

		});
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return this.methods.isLocked(method, targetClass);
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof DistributedLockPointcut that && this.methods == that.methods);
	}

	@Override
	public int hashCode() {
		return this.methods.hashCode();
	}

}
