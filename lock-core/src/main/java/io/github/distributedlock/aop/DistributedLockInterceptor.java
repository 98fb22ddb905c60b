package io.github.distributedlock.aop;

import java.util.List;
import java.util.function.Supplier;

import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockCallback;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@code @DistributedLock} method through
 * {@link LockTemplate#execute(LockRequest, LockCallback)}, or
 * {@link LockTemplate#executeAll(List, LockCallback)} when its key gives several locks,
 * so that {@link io.github.distributedlock.LockContext#current()} works inside it. A
 * timeout of its own lock goes to the {@link LockTimeoutHandler}; everything the method
 * throws is passed on unchanged. A method returning {@code Mono}, {@code Flux},
 * {@code CompletionStage} or {@code CompletableFuture}, or a Kotlin {@code suspend}
 * function, is locked until its result is done instead, through {@link ReactiveLocking}.
 * <p>
 * The collaborators are looked up on first use, so that creating the advisor early, as
 * auto-proxying does, creates no other bean early.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private final LockedMethods methods;

	private final Supplier<LockTemplate> lockTemplate;

	private final Supplier<LockTimeoutHandler> timeoutHandler;

	private final Supplier<List<LockTimeoutListener>> timeoutListeners;

	private final ReactiveLocking reactive;

	private final ScheduledOutages outages = new ScheduledOutages();

	/**
	 * Create an interceptor.
	 * @param methods the locked methods
	 * @param lockTemplate supplies the lock template, on first use
	 * @param timeoutHandler supplies the timeout handler, on first use
	 * @param timeoutListeners supplies the timeout listeners, on first use
	 */
	DistributedLockInterceptor(LockedMethods methods, Supplier<LockTemplate> lockTemplate,
			Supplier<LockTimeoutHandler> timeoutHandler, Supplier<List<LockTimeoutListener>> timeoutListeners) {
		this(methods, lockTemplate, timeoutHandler, timeoutListeners, ReactiveLocking.NONE);
	}

	/**
	 * Create an interceptor that also locks methods returning {@code Mono} or
	 * {@code Flux}.
	 * @param reactive runs those methods through the reactive template
	 */
	DistributedLockInterceptor(LockedMethods methods, Supplier<LockTemplate> lockTemplate,
			Supplier<LockTimeoutHandler> timeoutHandler, Supplier<List<LockTimeoutListener>> timeoutListeners,
			ReactiveLocking reactive) {
		this.reactive = reactive;
		this.methods = methods;
		this.lockTemplate = SingletonSupplier.of(lockTemplate);
		this.timeoutHandler = SingletonSupplier.of(timeoutHandler);
		this.timeoutListeners = SingletonSupplier.of(() -> List.copyOf(timeoutListeners.get()));
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return invocation.proceed();
		}
		LockedMethod locked = this.methods.find(invocation.getMethod(), AopUtils.getTargetClass(target));
		if (locked == null) {
			return invocation.proceed();
		}
		List<LockRequest> requests = locked.requests(target, invocation.getArguments());
		if (locked.result().isReactive()) {
			// Locked by each subscription, not by this thread.
			return this.reactive.invoke(invocation, locked.result(), requests,
					(timeout) -> timedOut(locked, target, invocation, requests, timeout));
		}
		boolean[] entered = new boolean[1];
		LockCallback<@Nullable Object> callback = (context) -> {
			entered[0] = true;
			try {
				return invocation.proceed();
			}
			catch (Throwable ex) {
				// Rethrown as it is, checked or not, so that the template, its
				// observation and the caller all see the method's own exception.
				throw LockedMethodFailure.<RuntimeException>rethrow(ex);
			}
		};
		LockTemplate template = this.lockTemplate.get();
		Object result;
		try {
			result = (requests.size() == 1) ? template.execute(requests.get(0), callback)
					: template.executeAll(requests, callback);
		}
		catch (LockTimeoutException ex) {
			if (entered[0]) {
				throw ex;
			}
			return timedOut(locked, target, invocation, requests, ex);
		}
		catch (LockAccessException ex) {
			if (entered[0] || !skipsOnOutage(locked)) {
				throw ex;
			}
			this.outages.failed(locked.method(), describe(locked, target),
					requests.stream().map(LockRequest::name).toList(), ex);
			return null;
		}
		if (this.outages.hasSkips()) {
			this.outages.reached(locked.method(), describe(locked, target));
		}
		return result;
	}

	/**
	 * Whether a trigger that cannot reach Redis is skipped with a WARN line instead of
	 * failing: for a {@code @Scheduled} job that skips when its lock is taken, the
	 * scheduler would log a stack trace at every trigger and run nothing either way.
	 */
	private static boolean skipsOnOutage(LockedMethod locked) {
		return locked.onTimeout() == OnTimeout.SKIP && ScheduledMethodDefaults.of(locked.method()).isScheduled();
	}

	private static String describe(LockedMethod locked, Object target) {
		return LockedMethodParser.describe(locked.method(), AopUtils.getTargetClass(target));
	}

	private @Nullable Object timedOut(LockedMethod locked, Object target, MethodInvocation invocation,
			List<LockRequest> requests, LockTimeoutException ex) throws Throwable {
		LockTimeoutContext timeout = new LockTimeoutContext(locked.method(), target, invocation.getArguments(),
				locked.onTimeout(), locked.fallback(), requests.stream().map(LockRequest::name).toList(), ex);
		for (LockTimeoutListener listener : this.timeoutListeners.get()) {
			try {
				listener.timedOut(timeout);
			}
			catch (RuntimeException failure) {
				logger.warn("LockTimeoutListener " + listener + " failed; ignoring", failure);
			}
		}
		return this.timeoutHandler.get().handleTimeout(timeout);
	}

	/**
	 * Lets a checked exception of the method pass through {@link LockCallback}, which
	 * declares none.
	 */
	private static final class LockedMethodFailure {

		@SuppressWarnings("unchecked")
		static <E extends Throwable> E rethrow(Throwable ex) throws E {
			throw (E) ex;
		}

	}

}
