package io.github.distributedlock;

import java.time.Duration;

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
public interface ReactiveLockContext {

	/**
	 * Return the name of the lock.
	 * @return the lock name
	 */
	LockName name();

	/**
	 * Return the fencing token of this hold; tokens of one lock increase strictly with
	 * each new holder, across processes and across the blocking and reactive engines.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return whether the lock was taken when first tried, so that the caller had to wait.
	 * @return whether we waited
	 */
	boolean waited();

	/**
	 * Return how long it took to get the lock, from the first attempt to success.
	 * @return the time spent acquiring
	 */
	Duration waitedFor();

	/**
	 * Return how many acquire commands were sent to Redis before the lock was ours.
	 * @return the number of attempts, at least 1
	 */
	int attempts();

	/**
	 * Return a conservative local estimate of the lease left, measured from the moment
	 * the winning acquire command (or the last renewal) was sent. No command is sent.
	 * @return the remaining lease, {@link Duration#ZERO} once it has run out
	 */
	Duration remainingLease();

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
