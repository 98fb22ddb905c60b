package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * What a locked method returns, which decides how long its lock is held: until the method
 * returns ({@link #VALUE}), or until the publisher, stage or coroutine it starts is done,
 * the reactive kinds, which the interceptor hands to {@link ReactiveLocking}. Free of
 * Reactor and Kotlin types.
 */
enum LockedResult {

	/** Held until the method returns, by the calling thread. */
	VALUE,

	/** A Reactor {@code Mono}: held by each subscription. */
	MONO,

	/** A Reactor {@code Flux}: held by each subscription. */
	FLUX,

	/**
	 * A {@code CompletionStage} or {@code CompletableFuture}: held from the call until
	 * the method's stage completes, or the returned future is cancelled.
	 */
	COMPLETION_STAGE,

	/**
	 * A Kotlin {@code suspend} function, which Spring AOP runs as a {@code Mono}: held
	 * until the function returns, or its coroutine is cancelled.
	 */
	SUSPEND_FUNCTION;

	private static final String CONTINUATION = "kotlin.coroutines.Continuation";

	/**
	 * Whether kotlinx-coroutines-reactor is there, for Spring AOP to run suspend
	 * functions as a Mono.
	 */
	static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			LockedResult.class.getClassLoader());

	/**
	 * Return whether the lock is held beyond the method's return, by the reactive
	 * template.
	 */
	boolean isReactive() {
		return this != VALUE;
	}

	/**
	 * Return the reactive kind of a method, when Reactor is there and the method's result
	 * can be locked by the reactive template; {@code null} otherwise.
	 */
	static @Nullable LockedResult reactiveKind(Method method) {
		if (!ReactiveLocking.REACTOR_PRESENT) {
			return null;
		}
		if (isSuspendFunction(method)) {
			return COROUTINES_REACTOR_PRESENT ? SUSPEND_FUNCTION : null;
		}
		Class<?> type = method.getReturnType();
		if (ReactiveLocking.isReactive(type)) {
			return type.getName().equals("reactor.core.publisher.Mono") ? MONO : FLUX;
		}
		// Only the types the interceptor can return itself: a subclass could not be made.
		if (type == CompletionStage.class || type == CompletableFuture.class) {
			return COMPLETION_STAGE;
		}
		return null;
	}

	static boolean isSuspendFunction(Method method) {
		Class<?>[] parameters = method.getParameterTypes();
		return parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION);
	}

	/**
	 * Return the type a suspend function returns, as its continuation's type argument
	 * tells it, or {@code null} if it does not.
	 */
	static @Nullable Class<?> suspendResultType(Method method) {
		Type[] parameters = method.getGenericParameterTypes();
		if (parameters.length == 0 || !(parameters[parameters.length - 1] instanceof ParameterizedType continuation)) {
			return null;
		}
		Type result = continuation.getActualTypeArguments()[0];
		if (result instanceof WildcardType wildcard) {
			Type[] lower = wildcard.getLowerBounds();
			result = (lower.length > 0) ? lower[0] : wildcard.getUpperBounds()[0];
		}
		if (result instanceof ParameterizedType parameterized) {
			result = parameterized.getRawType();
		}
		return (result instanceof Class<?> type) ? type : null;
	}

}
