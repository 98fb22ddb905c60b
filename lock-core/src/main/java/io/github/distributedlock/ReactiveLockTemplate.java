package io.github.distributedlock;

import java.util.List;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Programmatic access to distributed locks from reactive code (Project Reactor).
 * <p>
 * A lock is owned by the subscription that acquired it, never by a thread, and nothing
 * here blocks a thread, waits included. Each subscription is its own owner, so holds are
 * not reentrant: a chain that asks again for a lock it holds waits for itself until its
 * wait time runs out. A request with a {@linkplain LockRequest.Builder#owner(String)
 * custom owner} is that owner's instead, whose holds re-enter each other. The lock is
 * taken when the returned publisher is subscribed to, and each subscription takes it
 * anew. Implementations are thread-safe; errors are the blocking {@link LockTemplate}'s:
 * {@link LockTimeoutException} when the wait time runs out,
 * {@link LockLeaseLostException} when a hold is released after it was lost,
 * {@link LockAccessException} when Redis cannot be reached.
 */
public interface ReactiveLockTemplate {

	/**
	 * Acquire the requested lock on subscription, waiting up to the request's wait time.
	 * Cancelling while waiting gives the wait up; a hold won meanwhile is released.
	 * @param request the lock and how to take it
	 * @return the hold, to be released by the subscriber; errors with
	 * {@link LockTimeoutException} if the lock was not acquired within the wait time
	 */
	Mono<ReactiveLockHandle> acquire(LockRequest request);

	/**
	 * Like {@link #acquire(LockRequest)}, but completes empty when the wait time runs
	 * out.
	 * @param request the lock and how to take it
	 * @return the hold, or empty if the lock stayed taken for the whole wait time
	 */
	default Mono<ReactiveLockHandle> tryAcquire(LockRequest request) {
		return acquire(request).onErrorResume(LockTimeoutException.class, (ex) -> Mono.empty());
	}

	/**
	 * Run the work while holding the requested lock: the lock is taken on subscription,
	 * and released when the work's publisher completes, errors or is cancelled. The hold
	 * is also in the Reactor context, for {@link ReactiveLockContext#current()}.
	 * @param <T> the element type
	 * @param request the lock and how to take it
	 * @param work the protected work, given the hold
	 * @return the work's elements; errors with {@link LockTimeoutException} if the lock
	 * was not acquired within the wait time, and with {@link LockLeaseLostException} at
	 * the end if the lease was lost meanwhile (suppressed in the work's own error, if it
	 * failed), or at once, cancelling the work, under {@link LeaseLossPolicy#INTERRUPT}.
	 * A release that fails ({@link LockAccessException}) after work that ended before its
	 * lease could have run out completes normally: the lock ends with its lease.
	 */
	default <T> Flux<T> execute(LockRequest request,
			Function<? super ReactiveLockContext, ? extends Publisher<? extends T>> work) {
		return ReactiveLockedWork.run(acquire(request), request.onLeaseLost(), work);
	}

	/**
	 * Acquire every requested lock on subscription, or none. Locks are taken in one
	 * global order, so two subscribers asking for overlapping sets can't deadlock.
	 * Duplicate names are taken once. Cancelling while waiting gives the wait up; holds
	 * won meanwhile are released.
	 * @param requests the locks, at least one; the first request's wait time bounds the
	 * whole acquisition, and its owner owns every hold
	 * @return one handle for every hold, named after the first lock in the global order,
	 * whose release releases them all; errors with {@link LockTimeoutException} if not
	 * every lock was acquired within the wait time (none is then held), and, by default,
	 * for a template that takes one lock at a time, with
	 * {@link UnsupportedOperationException}
	 */
	default Mono<ReactiveLockHandle> acquireAll(List<LockRequest> requests) {
		return Mono.error(() -> new UnsupportedOperationException(
				getClass().getName() + " takes one lock at a time; acquireAll is not supported"));
	}

	/**
	 * Run the work while holding every requested lock, as
	 * {@link #execute(LockRequest, Function)} does for one: with
	 * {@link LeaseLossPolicy#INTERRUPT} on any of the requests, the loss of any of the
	 * locks cancels the work.
	 * @param <T> the element type
	 * @param requests the locks, as {@link #acquireAll(List)} takes them
	 * @param work the protected work, given the multi-lock's hold
	 * @return the work's elements
	 */
	default <T> Flux<T> executeAll(List<LockRequest> requests,
			Function<? super ReactiveLockContext, ? extends Publisher<? extends T>> work) {
		LeaseLossPolicy onLeaseLost = requests.stream()
			.anyMatch((request) -> request.onLeaseLost() == LeaseLossPolicy.INTERRUPT) ? LeaseLossPolicy.INTERRUPT
					: LeaseLossPolicy.CONTINUE;
		return ReactiveLockedWork.run(acquireAll(requests), onLeaseLost, work);
	}

	/**
	 * Run the work while holding the requested lock, as
	 * {@link #execute(LockRequest, Function)} does.
	 * @param <T> the value type
	 * @param request the lock and how to take it
	 * @param work the protected work, subscribed to once the lock is held
	 * @return the work's value
	 */
	default <T> Mono<T> locked(LockRequest request, Mono<T> work) {
		return Mono.usingWhen(acquire(request),
				(handle) -> ReactiveLockedWork
					.guard(handle, request.onLeaseLost(),
							work.contextWrite((context) -> context.put(ReactiveLockContext.class, handle)))
					.flatMap((value) -> ReactiveLockedWork.release(handle).thenReturn(value))
					.switchIfEmpty(ReactiveLockedWork.release(handle).then(Mono.empty())),
				ReactiveLockHandle::release, ReactiveLockedWork::releaseAfterError, ReactiveLockHandle::release);
	}

	/**
	 * Run the work while holding the requested lock, as
	 * {@link #execute(LockRequest, Function)} does.
	 * @param <T> the element type
	 * @param request the lock and how to take it
	 * @param work the protected work, subscribed to once the lock is held
	 * @return the work's elements
	 */
	default <T> Flux<T> locked(LockRequest request, Flux<T> work) {
		return execute(request, (context) -> work);
	}

}
