package io.github.distributedlock;

import java.time.Duration;
import java.util.Optional;

/**
 * What the code inside a critical section can know about the lock it holds.
 * <p>
 * Its main use is the cache-stampede pattern: a caller that {@linkplain #waited() waited}
 * for the lock should look in the cache again before doing the expensive work, because
 * the previous holder has probably just filled it. <pre class="code">
 * lockTemplate.execute("report", id, (context) -&gt; {
 *     if (context.waited()) {
 *         Report cached = cache.get(id);
 *         if (cached != null) {
 *             return cached;
 *         }
 *     }
 *     return cache.put(id, expensiveReport(id));
 * });
 * </pre> Inside {@link LockTemplate#execute(LockRequest, LockCallback)} and methods
 * annotated with {@code @DistributedLock}, {@link #current()} returns the innermost hold
 * of the calling thread.
 */
public interface LockContext {

	/**
	 * Return the name of the lock.
	 * @return the lock name
	 */
	LockName name();

	/**
	 * Return the fencing token of this hold. Tokens of one lock increase strictly with
	 * each new holder, across processes, so a protected resource can reject writes that
	 * carry a token lower than one it has already seen.
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
	 * Return a conservative local estimate of the lease left: measured from the moment
	 * the winning acquire command was sent, so the lease in Redis is at least this long.
	 * No Redis command is sent.
	 * @return the remaining lease, {@link Duration#ZERO} once it has run out
	 */
	Duration remainingLease();

	/**
	 * Ask Redis whether this hold is still the lock's owner. Sends one command.
	 * @return whether the lock is still held by this hold
	 */
	boolean isHeld();

	/**
	 * Return the innermost lock held by the calling thread through
	 * {@link LockTemplate#execute(LockRequest, LockCallback)} or
	 * {@code @DistributedLock}.
	 * @return the current lock context
	 * @throws IllegalStateException if the calling thread is not inside such a critical
	 * section
	 */
	static LockContext current() {
		return find().orElseThrow(() -> new IllegalStateException(
				"No lock is held by this thread through LockTemplate.execute or @DistributedLock"));
	}

	/**
	 * Return the innermost lock held by the calling thread, if any.
	 * @return the current lock context, or empty outside a critical section
	 */
	static Optional<LockContext> find() {
		return Optional.ofNullable(LockContextHolder.peek());
	}

}
