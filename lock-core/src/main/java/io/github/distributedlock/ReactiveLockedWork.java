package io.github.distributedlock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reactive counterpart of {@link LockedWork}, for the default methods of
 * {@link ReactiveLockTemplate}: cancels the work when its lease is found lost or runs out
 * under {@link LeaseLossPolicy#INTERRUPT}, and releases the hold after the work with the
 * same rules for what the subscriber sees.
 */
final class ReactiveLockedWork {

	private static final Log logger = LogFactory.getLog(ReactiveLockedWork.class);

	private ReactiveLockedWork() {
	}

	/**
	 * Run the work while holding what the acquisition gives: the hold is in the Reactor
	 * context, and released in line after the work, so that a lost lease is the error
	 * itself (the release on completion is then a no-op).
	 */
	static <T> Flux<T> run(Mono<ReactiveLockHandle> acquisition, LeaseLossPolicy onLeaseLost,
			Function<? super ReactiveLockContext, ? extends Publisher<? extends T>> work) {
		return Flux.usingWhen(acquisition,
				(handle) -> guard(handle, onLeaseLost,
						Flux.<T>from(work.apply(handle))
							.contextWrite((context) -> context.put(ReactiveLockContext.class, handle)))
					.concatWith(release(handle).then(Mono.empty())),
				ReactiveLockHandle::release, ReactiveLockedWork::releaseAfterError, ReactiveLockHandle::release);
	}

	/**
	 * Return the work, cut short with {@link LockLeaseLostException} if the policy says
	 * so and the lease is lost before the work ends.
	 */
	static <T> Flux<T> guard(ReactiveLockHandle handle, LeaseLossPolicy onLeaseLost, Flux<T> work) {
		if (onLeaseLost != LeaseLossPolicy.INTERRUPT) {
			return work;
		}
		return Flux.defer(() -> {
			AtomicBoolean lost = new AtomicBoolean();
			Mono<Boolean> loss = lossOf(handle).then(Mono.fromCallable(() -> {
				lost.set(true);
				return true;
			}));
			// Cancelling the work is what stops it: a future or coroutine it runs is
			// cancelled with it.
			return work.takeUntilOther(loss)
				.concatWith(Mono.defer(() -> lost.get() ? Mono.error(lostDuringWork(handle)) : Mono.empty()));
		});
	}

	/**
	 * Return the work, cancelled with {@link LockLeaseLostException} if the policy says
	 * so and the lease is lost before the work ends.
	 */
	static <T> Mono<T> guard(ReactiveLockHandle handle, LeaseLossPolicy onLeaseLost, Mono<T> work) {
		if (onLeaseLost != LeaseLossPolicy.INTERRUPT) {
			return work;
		}
		return Mono.firstWithSignal(work, lossOf(handle).then(Mono.error(() -> lostDuringWork(handle))));
	}

	/**
	 * Release the hold after work that ended normally: a release that fails after work
	 * that ended before its lease could have run out completes (the work ran wholly under
	 * the lock, and the lock ends with its lease); one that fails after the lease ran out
	 * is a lost lease.
	 */
	static Mono<Void> release(ReactiveLockHandle handle) {
		return Mono.defer(() -> {
			// Measured when the work ended, before the release ends the lease.
			boolean endedInLease = !handle.remainingLease().isZero();
			return handle.release().onErrorResume(LockAccessException.class, (ex) -> {
				if (!endedInLease) {
					return Mono.error(new LockLeaseLostException(handle.name(), handle.fencingToken(),
							"its lease ran out before the work ended, and its release failed", ex));
				}
				logger.warn("Lock '" + handle.name() + "': the work ended under the lock, but its release failed; "
						+ "completing with the work's result. The lock stays taken until its lease ends", ex);
				return Mono.empty();
			});
		});
	}

	/**
	 * Release the hold after work that failed: the work's error is what the subscriber
	 * needs, and a failed release is added to it.
	 */
	static Mono<Void> releaseAfterError(ReactiveLockHandle handle, Throwable error) {
		return handle.release().onErrorResume((releaseFailure) -> {
			error.addSuppressed(releaseFailure);
			return Mono.empty();
		});
	}

	/**
	 * Return a {@code Mono} that completes when the hold is found lost or its lease runs
	 * out, whichever comes first.
	 */
	private static Mono<Void> lossOf(ReactiveLockHandle handle) {
		return Mono.firstWithSignal(handle.whenLost(), deadline(handle));
	}

	private static Mono<Void> deadline(ReactiveLockContext hold) {
		return Mono.defer(() -> {
			Duration left = hold.remainingLease();
			// Renewals push the deadline on: checked again then, about once a lease.
			return left.isZero() ? Mono.empty() : Mono.delay(left).then(deadline(hold));
		});
	}

	private static LockLeaseLostException lostDuringWork(ReactiveLockContext hold) {
		return new LockLeaseLostException(hold.name(), hold.fencingToken(),
				"lost while the work ran, which was cancelled");
	}

}
