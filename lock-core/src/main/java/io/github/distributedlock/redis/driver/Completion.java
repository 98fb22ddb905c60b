package io.github.distributedlock.redis.driver;

import java.util.function.Consumer;

/**
 * Told how an acquisition ends, once: with what it won, or with why not. A cancelled
 * acquisition tells nobody.
 *
 * @param <G> what a won acquisition gives
 */
public interface Completion<G> {

	void granted(G won);

	void failed(Throwable error);

	static <G> Completion<G> of(Consumer<? super G> granted, Consumer<? super Throwable> failed) {
		return new Completion<>() {

			@Override
			public void granted(G won) {
				granted.accept(won);
			}

			@Override
			public void failed(Throwable error) {
				failed.accept(error);
			}

		};
	}

}
