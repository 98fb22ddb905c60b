package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.github.distributedlock.DistributedLock.OnTimeout;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Nullness;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.util.ClassUtils;

/**
 * Checks what a {@code @DistributedLock} method returns and decides, from it, how long
 * its lock is held ({@link LockedResult}). Asynchronous results the lock cannot follow
 * are refused, with what to do instead.
 */
final class LockedReturnTypes {

	private static final String[] ASYNC_TYPES = { "java.util.concurrent.CompletionStage", "java.util.concurrent.Future",
			"java.util.concurrent.Flow$Publisher", "org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow" };

	private LockedReturnTypes() {
	}

	/**
	 * Return how the method's lock is held, or add what is wrong to {@code found}.
	 */
	static LockedResult check(Method method, Class<?> targetClass, OnTimeout onTimeout, boolean defaultSkip,
			LockedMethodParser.Problems found) {
		Class<?> type = method.getReturnType();
		if (onTimeout == OnTimeout.SKIP && type.isPrimitive() && type != void.class) {
			String skip = defaultSkip ? "onTimeout = SKIP (the default of a @Scheduled method)" : "onTimeout = SKIP";
			found.add("returns " + type + ", so " + skip + " has no value to return; use THROW or FALLBACK, "
					+ "or return " + ClassUtils.resolvePrimitiveIfNecessary(type).getSimpleName() + " or Optional");
		}
		boolean runsAsync = AnnotatedElementUtils.hasAnnotation(method, Async.class)
				|| AnnotatedElementUtils.hasAnnotation(targetClass, Async.class);
		LockedResult reactive = runsAsync ? null : LockedResult.reactiveKind(method);
		if (reactive != null) {
			// Held until the publisher, stage or coroutine is done, by the reactive
			// template.
			checkReactive(method, reactive, onTimeout, found);
			return reactive;
		}
		String async = asyncType(method);
		if (async == null) {
			return LockedResult.VALUE;
		}
		if (runsAsync && isFuture(type)) {
			return LockedResult.VALUE;
		}
		found.add("returns " + async + ": the lock is taken by the calling thread and released when the method "
				+ "returns, before the asynchronous work is done, so it would not protect that work; "
				+ howToLock(method, type));
		return LockedResult.VALUE;
	}

	private static String howToLock(Method method, Class<?> type) {
		if (LockedResult.isSuspendFunction(method)) {
			return "add kotlinx-coroutines-reactor to the class path, so that the lock is held until the function "
					+ "returns";
		}
		if (isFuture(type) && !CompletionStage.class.isAssignableFrom(type)) {
			return "a Future cannot tell when its work is done, so return CompletableFuture or CompletionStage "
					+ "instead (the lock is then held until it completes), or lock inside the asynchronous task";
		}
		if (CompletionStage.class.isAssignableFrom(type)) {
			return ReactiveLocking.REACTOR_PRESENT
					? "declare the return type as CompletableFuture or CompletionStage, the types whose lock is held "
							+ "until they complete"
					: "with Reactor on the class path and a ReactiveLockTemplate bean, a method returning "
							+ "CompletableFuture or CompletionStage holds its lock until it completes";
		}
		return "lock inside the asynchronous task instead (an @Async method may return a CompletableFuture)";
	}

	private static void checkReactive(Method method, LockedResult result, OnTimeout onTimeout,
			LockedMethodParser.Problems found) {
		if (result != LockedResult.SUSPEND_FUNCTION) {
			return;
		}
		if (onTimeout == OnTimeout.FALLBACK) {
			found.add("is a Kotlin suspend function, for which onTimeout = FALLBACK is not supported; use THROW "
					+ "and catch LockTimeoutException, or SKIP with a nullable return type");
		}
		Class<?> returned = LockedResult.suspendResultType(method);
		if (returned != null && isAssignable("kotlinx.coroutines.flow.Flow", returned)) {
			found.add("is a Kotlin suspend function returning Flow, whose collection the lock cannot follow; "
					+ "return a List, or take the lock inside the flow with ReactiveLockTemplate");
		}
		if (onTimeout == OnTimeout.SKIP && returned != null && !"kotlin.Unit".equals(returned.getName())
				&& Nullness.forMethodReturnType(method) == Nullness.NON_NULL) {
			// Known with kotlin-reflect on the class path (as Spring's Kotlin support
			// needs); without it, nullness is unspecified and not checked.
			found.add("is a Kotlin suspend function returning the non-null " + returned.getSimpleName()
					+ ", so onTimeout = SKIP, which returns null, would break its type; declare the return type "
					+ "nullable (" + returned.getSimpleName() + "?), or use THROW");
		}
	}

	private static @Nullable String asyncType(Method method) {
		Class<?>[] parameters = method.getParameterTypes();
		if (parameters.length > 0
				&& parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
			return "a Kotlin suspend function";
		}
		for (String name : ASYNC_TYPES) {
			if (isAssignable(name, method.getReturnType())) {
				return method.getReturnType().getSimpleName();
			}
		}
		return null;
	}

	private static boolean isFuture(Class<?> type) {
		return Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type);
	}

	/**
	 * Return whether the type is, extends or implements the named type, through any chain
	 * of superclasses and superinterfaces (compared by name: the named type may not be on
	 * the class path).
	 */
	private static boolean isAssignable(String typeName, @Nullable Class<?> type) {
		if (type == null) {
			return false;
		}
		if (type.getName().equals(typeName)) {
			return true;
		}
		for (Class<?> implemented : type.getInterfaces()) {
			if (isAssignable(typeName, implemented)) {
				return true;
			}
		}
		return isAssignable(typeName, type.getSuperclass());
	}

}
