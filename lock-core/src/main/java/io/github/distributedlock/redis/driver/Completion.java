package io.github.distributedlock.redis.driver;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Told how one step ends, once: with what it gives, or with why not. An acquisition gives
 * what it won (a cancelled one tells nobody), a script run by a {@link LockPort} its
 * reply, a hold's extension or release what Redis answered.
 *
 * @param <G> what the step gives when it succeeds
 */
public interface Completion<G extends @Nullable Object> {

	void granted(G won);

	void failed(Throwable error);

	static <G extends @Nullable Object> Completion<G> of(Consumer<? super G> granted,
			Consumer<? super Throwable> failed) {
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
