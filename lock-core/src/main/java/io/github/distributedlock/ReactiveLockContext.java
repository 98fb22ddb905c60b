package io.github.distributedlock;

import reactor.core.publisher.Mono;

/**
 * What reactive code inside a critical section can know about the lock it holds: the
 * reactive counterpart of {@link LockContext}, carried in the Reactor context instead of
 * a thread-local.
 * <p>
 * Inside {@link ReactiveLockTemplate#execute} and {@code locked}, {@link #current()}
 * emits the innermost hold of the subscription: <pre class="code">
 * ReactiveLockContext.current()
 *     .flatMap((lock) -&gt; repository.write(data, lock.fencingToken()));
 * </pre>
 */
public interface ReactiveLockContext extends AcquiredLock {

	/**
	 * Ask Redis whether this hold is still the lock's owner. Sends one command on
	 * subscription.
	 * @return whether the lock is still held by this hold
	 */
	Mono<Boolean> isHeld();

	/**
	 * Emit the innermost hold of the subscribing chain, or an
	 * {@link IllegalStateException} outside a critical section.
	 * @return the current lock context
	 */
	static Mono<ReactiveLockContext> current() {
		return find().switchIfEmpty(Mono.error(() -> new IllegalStateException(
				"No lock is held by this subscription through ReactiveLockTemplate.execute or locked")));
	}

	/**
	 * Emit the innermost hold of the subscribing chain, or nothing outside a critical
	 * section.
	 * @return the current lock context, or empty
	 */
	static Mono<ReactiveLockContext> find() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(context.getOrEmpty(ReactiveLockContext.class)));
	}

}
