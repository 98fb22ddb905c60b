package io.github.distributedlock.aop;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * {@link ReactiveLocking} with Reactor: each subscription to the returned {@code Mono} or
 * {@code Flux} takes the lock, runs the method (a fresh invocation per subscription), and
 * releases the lock when the method's publisher terminates or is cancelled. A
 * {@code CompletionStage} method's future is that run, subscribed at once; a Kotlin
 * suspend function's {@code Mono} is awaited by Spring AOP ({@link ReactorResult}). A
 * timeout of the method's own lock gives the method's {@code onTimeout}: the error
 * (THROW), nothing (SKIP: an empty publisher, or {@code null}), or the fallback's result
 * (FALLBACK).
 */
final class ReactorLocking implements ReactiveLocking {

	private final ObjectProvider<ReactiveLockTemplate> template;

	private ReactorLocking(ObjectProvider<ReactiveLockTemplate> template) {
		this.template = template;
	}

	static ReactiveLocking of(BeanFactory beanFactory) {
		return new ReactorLocking(beanFactory.getBeanProvider(ReactiveLockTemplate.class));
	}

	@Override
	public Object invoke(MethodInvocation invocation, LockedResult result, List<LockRequest> requests,
			TimeoutFallback timeout) {
		ReactorResult adapter = ReactorResult.of(result);
		return adapter.toCaller(Flux.defer(() -> run(invocation, adapter, requests, timeout)));
	}

	private Flux<Object> run(MethodInvocation invocation, ReactorResult result, List<LockRequest> requests,
			TimeoutFallback timeout) {
		ReactiveLockTemplate template = this.template.getIfAvailable();
		if (template == null) {
			return Flux
				.error(new IllegalStateException("Lock '" + requests.get(0).name() + "' of " + invocation.getMethod()
						+ ": the method returns a reactive type, which needs a " + "ReactiveLockTemplate bean"));
		}
		AtomicBoolean entered = new AtomicBoolean();
		Flux<Object> work = Flux.defer(() -> {
			entered.set(true);
			return result.fromMethod(proceed(invocation));
		});
		// A key that gives several locks takes them all, or none, as executeAll does.
		Flux<Object> locked = (requests.size() == 1) ? template.locked(requests.get(0), work)
				: template.executeAll(requests, (hold) -> work);
		return locked.onErrorResume(LockTimeoutException.class,
				(ex) -> entered.get() ? Flux.error(ex) : Flux.defer(() -> result.fromMethod(handle(timeout, ex))));
	}

	private static @Nullable Object proceed(MethodInvocation invocation) {
		try {
			// A fresh invocation for each subscription, as a re-subscribed publisher
			// calls the method again.
			return (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone().proceed()
					: invocation.proceed();
		}
		catch (Throwable ex) {
			return Flux.error(ex);
		}
	}

	private static @Nullable Object handle(TimeoutFallback timeout, LockTimeoutException ex) {
		try {
			return timeout.handle(ex);
		}
		catch (Throwable failure) {
			return Flux.error(failure);
		}
	}

}
