package io.github.distributedlock.aop;

import java.util.List;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * How the interceptor runs a {@code @DistributedLock} method that returns a Reactor
 * {@code Mono} or {@code Flux}, a {@code CompletionStage}, or is a Kotlin suspend
 * function ({@link LockedResult}): through a
 * {@link io.github.distributedlock.ReactiveLockTemplate}, so that the lock is owned by
 * the subscription. Free of Reactor types, so that the interceptor loads without Reactor;
 * {@link ReactorLocking} is the implementation, created only when Reactor is there.
 */
interface ReactiveLocking {

	/** Whether Reactor is on the class path. */
	boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReactiveLocking.class.getClassLoader());

	/** No reactive locking: the parser refuses reactive methods then. */
	ReactiveLocking NONE = (invocation, result, requests, timeout) -> {
		throw new IllegalStateException("This interceptor was built without reactive locking");
	};

	/**
	 * Return whether a method's return type is a {@code Mono} or a {@code Flux}, which
	 * the reactive template can lock.
	 */
	static boolean isReactive(Class<?> returnType) {
		String name = returnType.getName();
		return REACTOR_PRESENT
				&& (name.equals("reactor.core.publisher.Mono") || name.equals("reactor.core.publisher.Flux"));
	}

	/**
	 * Return the reactive locking of the context, or {@link #NONE} without Reactor.
	 */
	static ReactiveLocking of(BeanFactory beanFactory) {
		return REACTOR_PRESENT ? ReactorLocking.of(beanFactory) : NONE;
	}

	/**
	 * Return a publisher that runs the method under its lock on each subscription, or,
	 * for a {@code CompletionStage}, a future whose lock is taken now.
	 * @param invocation the call
	 * @param result what the method returns
	 * @param requests the method's locks for this call
	 * @param timeout what the method's {@code onTimeout} gives when its lock timed out
	 */
	@Nullable Object invoke(MethodInvocation invocation, LockedResult result, List<LockRequest> requests,
			TimeoutFallback timeout);

	/**
	 * Handles a timeout of the method's own lock as the interceptor does for blocking
	 * methods.
	 */
	@FunctionalInterface
	interface TimeoutFallback {

		@Nullable Object handle(LockTimeoutException timeout) throws Throwable;

	}

}
