package io.github.distributedlock.redis.reactive;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.Completion;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * One of the driver's calls ({@link Acquisitions.Call}) as a {@code Mono} that its
 * cancellation cancels, which ends once the call settled. The simulation runs it too.
 * <p>
 * What the call won goes to the subscriber or, once, to the discard hooks, which release
 * it. Reactor's sink, while it is being cancelled, drops a value with neither; so the
 * sink carries the value in a {@link Won} box that only one of the subscriber, the cancel
 * or a win after the cancel may open.
 */
public final class AcquisitionMono {

	private AcquisitionMono() {
	}

	/**
	 * Return the call as a {@code Mono}: each subscription starts one.
	 * @param acquisition makes the call, given the completion that tells its end
	 */
	public static <G> Mono<G> of(Function<Completion<G>, Acquisitions.Call<?, G>> acquisition) {
		return Mono.<Won<G>>create((sink) -> {
			AtomicReference<@Nullable Won<G>> sent = new AtomicReference<>();
			AtomicBoolean cancelled = new AtomicBoolean();
			Acquisitions.Call<?, G> call = acquisition.apply(Completion.of((won) -> {
				Won<G> box = new Won<>(won);
				sent.set(box);
				sink.success(box);
				if (cancelled.get()) {
					box.discard(sink.currentContext());
				}
			}, sink::error));
			sink.onCancel(() -> {
				cancelled.set(true);
				call.cancel(null);
				Won<G> box = sent.get();
				if (box != null) {
					box.discard(sink.currentContext());
				}
			});
			call.start();
		}).handle((box, next) -> {
			if (box.open()) {
				next.next(box.value);
			}
		});
	}

	/**
	 * What a run won, on its way to the subscriber: whoever opens it first has it.
	 */
	private static final class Won<G> {

		private final AtomicBoolean opened = new AtomicBoolean();

		private final G value;

		Won(G value) {
			this.value = value;
		}

		boolean open() {
			return this.opened.compareAndSet(false, true);
		}

		/**
		 * Hand the value to the discard hooks, unless someone opened it already.
		 */
		void discard(Context context) {
			if (open()) {
				Operators.onDiscard(this.value, context);
			}
		}

	}

}
