package io.github.distributedlock.observation;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockContext;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockTemplate;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * A {@link ReactiveLockTemplate} that observes each
 * {@link #execute(LockRequest, Function) execute}, {@code executeAll} and {@code locked},
 * as {@link ObservedLockTemplate} observes the blocking template: one
 * {@link LockObservationDocumentation#LOCK} observation, with the same convention, spans
 * acquiring the lock, running the work and releasing the lock.
 * <p>
 * Observations travel in the Reactor context, as in Spring's reactive instrumentation:
 * the parent is the observation under {@link ObservationThreadLocalAccessor#KEY} in the
 * subscriber's context, and the work sees this observation under that key. A cancelled
 * subscription stops the observation. {@code acquire}, {@code tryAcquire} and
 * {@code acquireAll} return holds that outlive any scope, so they are passed on
 * unobserved.
 * <p>
 * Thread-safe if the delegate is.
 */
public final class ObservedReactiveLockTemplate extends ObservedTemplate<ReactiveLockTemplate>
		implements ReactiveLockTemplate {

	/**
	 * Create an observed template with the default convention.
	 * @param delegate the template that does the locking
	 * @param registry the observation registry
	 */
	public ObservedReactiveLockTemplate(ReactiveLockTemplate delegate, ObservationRegistry registry) {
		this(delegate, registry, null);
	}

	/**
	 * Create an observed template.
	 * @param delegate the template that does the locking
	 * @param registry the observation registry
	 * @param convention a convention that replaces the default, or {@code null}
	 */
	public ObservedReactiveLockTemplate(ReactiveLockTemplate delegate, ObservationRegistry registry,
			@Nullable LockObservationConvention convention) {
		super(delegate, registry, convention);
	}

	/**
	 * Return the template that does the locking.
	 * @return the delegate
	 */
	public ReactiveLockTemplate getDelegate() {
		return this.delegate;
	}

	@Override
	public Mono<ReactiveLockHandle> acquire(LockRequest request) {
		return this.delegate.acquire(request);
	}

	@Override
	public Mono<ReactiveLockHandle> tryAcquire(LockRequest request) {
		return this.delegate.tryAcquire(request);
	}

	@Override
	public Mono<ReactiveLockHandle> acquireAll(List<LockRequest> requests) {
		return this.delegate.acquireAll(requests);
	}

	@Override
	public <T> Flux<T> execute(LockRequest request,
			Function<? super ReactiveLockContext, ? extends Publisher<? extends T>> work) {
		return observe(List.of(request), work, (observed) -> this.delegate.<T>execute(request, observed));
	}

	@Override
	public <T> Flux<T> executeAll(List<LockRequest> requests,
			Function<? super ReactiveLockContext, ? extends Publisher<? extends T>> work) {
		return observe(requests, work, (observed) -> this.delegate.<T>executeAll(requests, observed));
	}

	private <T> Flux<T> observe(List<LockRequest> requests,
			Function<? super ReactiveLockContext, ? extends Publisher<? extends T>> work,
			Function<Function<? super ReactiveLockContext, ? extends Publisher<? extends T>>, Flux<T>> run) {
		return Flux.deferContextual((view) -> {
			LockObservationContext context = new LockObservationContext(requests);
			Observation observation = start(context, view);
			return run.apply((lock) -> {
				context.acquired(lock);
				return work.apply(lock);
			})
				.doOnError((ex) -> failed(context, observation, ex))
				// Stopped before the subscriber hears of the end, so that a caller that
				// blocked on the result finds it stopped (doFinally would run after
				// that).
				.doOnTerminate(observation::stop)
				.doOnCancel(observation::stop)
				.contextWrite((downstream) -> downstream.put(ObservationThreadLocalAccessor.KEY, observation));
		});
	}

	@Override
	public <T> Mono<T> locked(LockRequest request, Mono<T> work) {
		return Mono.deferContextual((view) -> {
			LockObservationContext context = new LockObservationContext(List.of(request));
			Observation observation = start(context, view);
			// Read from the context, not find().then(work): the handle that then() would
			// ignore reaches any discard hook below, which may release it under the work.
			Mono<T> marked = Mono.deferContextual((locked) -> {
				locked.<ReactiveLockContext>getOrEmpty(ReactiveLockContext.class).ifPresent(context::acquired);
				return work;
			});
			return this.delegate.locked(request, marked)
				.doOnError((ex) -> failed(context, observation, ex))
				// Stopped before the subscriber hears of the end, so that a caller that
				// blocked on the result finds it stopped (doFinally would run after
				// that).
				.doOnTerminate(observation::stop)
				.doOnCancel(observation::stop)
				.contextWrite((downstream) -> downstream.put(ObservationThreadLocalAccessor.KEY, observation));
		});
	}

	private Observation start(LockObservationContext context, ContextView view) {
		Observation observation = observation(context);
		// Only a parent found in the context replaces the one taken from the thread.
		Optional<Observation> parent = view.getOrEmpty(ObservationThreadLocalAccessor.KEY);
		parent.ifPresent(observation::parentObservation);
		return observation.start();
	}

	private static void failed(LockObservationContext context, Observation observation, Throwable ex) {
		context.failed(ex);
		observation.error(ex);
	}

}
