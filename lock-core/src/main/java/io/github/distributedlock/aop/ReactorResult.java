package io.github.distributedlock.aop;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * How {@link ReactorLocking} turns what a locked method (or its timeout handling) returns
 * into the {@code Flux} run under the lock, and that {@code Flux} back into what the
 * caller gets: one constant per reactive {@link LockedResult}.
 */
enum ReactorResult {

	/**
	 * A {@code Mono}: the element of the locked run. Taken with {@code singleOrEmpty},
	 * never {@code next}, which would cancel the run at its element, so that the lock is
	 * released (and a lost lease reported) before the caller gets it.
	 */
	MONO {
		@Override
		Object toCaller(Flux<Object> locked) {
			return locked.singleOrEmpty();
		}
	},

	/** A {@code Flux}: the locked run itself. */
	FLUX {
		@Override
		Object toCaller(Flux<Object> locked) {
			return locked;
		}
	},

	/**
	 * A {@code CompletableFuture}, subscribed at once: the lock is taken on the call.
	 * Cancelling it cancels the run, which releases the lock and cancels the method's
	 * stage if it is a future.
	 */
	COMPLETION_STAGE {
		@Override
		@SuppressWarnings("unchecked")
		Flux<Object> fromMethod(@Nullable Object returned) {
			if (returned instanceof CompletionStage<?> stage) {
				return Mono.fromCompletionStage((CompletionStage<Object>) stage).flux();
			}
			return super.fromMethod(returned);
		}

		@Override
		Object toCaller(Flux<Object> locked) {
			return locked.singleOrEmpty().toFuture();
		}
	},

	/**
	 * A Kotlin suspend function: Spring AOP gives its call as a {@code Mono} and awaits
	 * the {@code Mono} returned to it with the caller's continuation.
	 */
	SUSPEND_FUNCTION {
		@Override
		Flux<Object> fromMethod(@Nullable Object returned) {
			return (returned == null || returned instanceof Publisher<?>) ? super.fromMethod(returned)
					: Flux.just(returned);
		}

		@Override
		Object toCaller(Flux<Object> locked) {
			return locked.singleOrEmpty();
		}
	};

	/**
	 * Return the elements of what the method, or the timeout handling, returned:
	 * {@code null} is none.
	 */
	@SuppressWarnings("unchecked")
	Flux<Object> fromMethod(@Nullable Object returned) {
		return (returned != null) ? Flux.from((Publisher<Object>) returned) : Flux.empty();
	}

	/**
	 * Return what the caller gets for the locked run.
	 */
	abstract Object toCaller(Flux<Object> locked);

	static ReactorResult of(LockedResult result) {
		return switch (result) {
			case MONO -> MONO;
			case FLUX -> FLUX;
			case COMPLETION_STAGE -> COMPLETION_STAGE;
			case SUSPEND_FUNCTION -> SUSPEND_FUNCTION;
			case VALUE -> throw new IllegalArgumentException("A method returning a value is locked by its thread");
		};
	}

}
