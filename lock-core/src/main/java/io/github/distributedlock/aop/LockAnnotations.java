package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import io.github.distributedlock.DistributedLock;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @DistributedLock} that applies to a method: its own, or its class's
 * for a public method that doesn't opt out.
 */
final class LockAnnotations {

	private LockAnnotations() {
	}

	/**
	 * Return the annotation that applies to a method.
	 * @param method the most specific method of the target class
	 * @return the annotation, or {@code null} if the method is not locked
	 */
	static @Nullable DistributedLock find(Method method) {
		if (method.getDeclaringClass() == Object.class || method.isBridge() || method.isSynthetic()) {
			return null;
		}
		DistributedLock own = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		if (own != null) {
			return own;
		}
		if (!isClassLevelCandidate(method)) {
			return null;
		}
		return AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), DistributedLock.class);
	}

	/**
	 * Return whether the annotation comes from the method's class rather than the method.
	 */
	static boolean isFromClass(Method method) {
		return !AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class);
	}

	private static boolean isClassLevelCandidate(Method method) {
		int modifiers = method.getModifiers();
		return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers)
				&& !AnnotatedElementUtils.hasAnnotation(method, DistributedLock.Exclude.class)
				&& !ReflectionUtils.isEqualsMethod(method) && !ReflectionUtils.isHashCodeMethod(method)
				&& !ReflectionUtils.isToStringMethod(method);
	}

}
