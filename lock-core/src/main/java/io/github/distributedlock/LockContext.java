package io.github.distributedlock;

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
public interface LockContext extends AcquiredLock {

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
