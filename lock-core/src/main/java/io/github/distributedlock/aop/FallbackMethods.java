package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds and checks the fallback method of an annotated method.
 */
final class FallbackMethods {

	private FallbackMethods() {
	}

	/**
	 * Return the fallback of a method, or add what is wrong to {@code found}.
	 * @return the fallback, or {@code null} if there is none or it is wrong
	 */
	static @Nullable Method find(Method method, Class<?> targetClass, DistributedLock lock, OnTimeout onTimeout,
			LockedMethodParser.Problems found) {
		String name = lock.fallback();
		if (onTimeout != OnTimeout.FALLBACK) {
			if (!name.isEmpty()) {
				found.add(
						"fallback '" + name + "' is set, but onTimeout is " + onTimeout + "; set onTimeout = FALLBACK");
			}
			return null;
		}
		if (name.isEmpty()) {
			found.add("onTimeout is FALLBACK, but no fallback method is named; set fallback = \"methodName\"");
			return null;
		}
		List<Method> candidates = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, candidates::add,
				(candidate) -> candidate.getName().equals(name) && !candidate.isBridge());
		if (candidates.isEmpty()) {
			found.add("fallback method '" + name + "' does not exist in "
					+ ClassUtils.getUserClass(targetClass).getName());
			return null;
		}
		for (Method candidate : candidates) {
			if (fits(candidate, method)) {
				if (candidate.equals(method)) {
					found.add("fallback '" + name + "' is the annotated method itself");
					return null;
				}
				return candidate;
			}
		}
		String parameters = Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		String withTimeout = parameters.isEmpty() ? "LockTimeoutException" : parameters + ", LockTimeoutException";
		found.add("fallback method '" + name + "' has the wrong signature: it must take (" + parameters + ") or ("
				+ withTimeout + ")"
				+ (method.getReturnType() != void.class ? " and return " + method.getReturnType().getSimpleName() : "")
				+ ", but found "
				+ candidates.stream()
					.map((candidate) -> LockedMethodParser.describe(candidate, candidate.getDeclaringClass())
							+ " returning " + candidate.getReturnType().getSimpleName())
					.collect(Collectors.joining(", ")));
		return null;
	}

	private static boolean fits(Method candidate, Method method) {
		Class<?>[] expected = method.getParameterTypes();
		Class<?>[] actual = candidate.getParameterTypes();
		boolean sameParameters = Arrays.equals(actual, expected);
		boolean plusTimeout = actual.length == expected.length + 1
				&& Arrays.equals(Arrays.copyOf(actual, expected.length), expected)
				&& actual[expected.length].isAssignableFrom(LockTimeoutException.class);
		if (!sameParameters && !plusTimeout) {
			return false;
		}
		return method.getReturnType() == void.class
				|| ClassUtils.isAssignable(method.getReturnType(), candidate.getReturnType());
	}

}
