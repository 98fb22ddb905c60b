package io.github.distributedlock;

import java.util.Optional;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Programmatic access to distributed locks.
 * <p>
 * Implementations are thread-safe. Locks are owned by the thread that acquires them and,
 * unless a request says otherwise, are reentrant for that thread. Waiting honours
 * interrupts, with {@link LockInterruptedException}. Every method may throw
 * {@link LockAccessException} when Redis cannot be reached; nothing waits longer than the
 * wait time plus the Redis command timeout.
 */
public interface LockTemplate {

	/**
	 * Run the callback while holding {@code scope:key}, with every setting from the
	 * defaults.
	 * @param <T> the result type
	 * @param scope the scope
	 * @param key the key, or {@code null} to lock the whole scope
	 * @param callback the protected work
	 * @return the callback's result
	 * @throws LockTimeoutException if the lock was not acquired within the wait time
	 * @throws LockLeaseLostException if the lease was lost before the callback finished
	 */
	default <T extends @Nullable Object> T execute(String scope, @Nullable String key, LockCallback<T> callback) {
		return execute(LockRequest.of(scope, key), callback);
	}

	/**
	 * Run the callback while holding the requested lock. Inside the callback,
	 * {@link LockContext#current()} returns the same context the callback receives.
	 * <p>
	 * A release that fails ({@link LockAccessException}, Redis unreachable) after a
	 * callback that returned before its lease could have run out does not fail the call:
	 * the callback ran wholly under the lock, so its result is returned, a warning is
	 * logged and the listeners hear of it; the lock ends with its lease. With
	 * {@link LeaseLossPolicy#INTERRUPT}, the thread is interrupted when the lease is
	 * found lost or runs out while the callback runs (see
	 * {@link LockRequest.Builder#onLeaseLost(LeaseLossPolicy)}).
	 * @param <T> the result type
	 * @param request the lock and how to take it
	 * @param callback the protected work
	 * @return the callback's result
	 * @throws LockTimeoutException if the lock was not acquired within the wait time
	 * @throws LockLeaseLostException if the lease was lost before the callback finished;
	 * if the callback threw too, its exception is thrown with this one suppressed, unless
	 * the callback was interrupted because of the loss
	 */
	default <T extends @Nullable Object> T execute(LockRequest request, LockCallback<T> callback) {
		return LockedWork.run(acquire(request), request.onLeaseLost(), callback);
	}

	/**
	 * Run the action while holding the requested lock.
	 * @param request the lock and how to take it
	 * @param action the protected work
	 * @throws LockTimeoutException if the lock was not acquired within the wait time
	 * @throws LockLeaseLostException if the lease was lost before the action finished
	 */
	default void executeWithoutResult(LockRequest request, Consumer<LockContext> action) {
		execute(request, (context) -> {
			action.accept(context);
			return null;
		});
	}

	/**
	 * Acquire the requested lock, waiting up to the request's wait time.
	 * @param request the lock and how to take it
	 * @return the hold, to be closed when done
	 * @throws LockTimeoutException if the lock was not acquired within the wait time
	 * @throws LockSelfDeadlockException if the request is not reentrant and this thread
	 * already holds the lock
	 */
	LockHandle acquire(LockRequest request);

	/**
	 * Try to acquire the requested lock, waiting up to the request's wait time.
	 * @param request the lock and how to take it
	 * @return the hold, or empty if the lock stayed taken for the whole wait time
	 * @throws LockSelfDeadlockException if the request is not reentrant and this thread
	 * already holds the lock
	 */
	Optional<LockHandle> tryAcquire(LockRequest request);

	/**
	 * Run the callback while holding every requested lock, taken all or nothing.
	 * @param <T> the result type
	 * @param requests the locks; the first request's wait time bounds the whole
	 * acquisition
	 * @param callback the protected work; its context is the multi-lock handle, whose
	 * {@link LockHandle#locks()} lists each hold
	 * @return the callback's result
	 * @throws LockTimeoutException if not every lock was acquired within the wait time;
	 * none is then held
	 * @throws LockLeaseLostException if a lease was lost before the callback finished;
	 * with {@link LeaseLossPolicy#INTERRUPT} on any of the requests, the loss of any of
	 * the locks interrupts the callback
	 */
	default <T extends @Nullable Object> T executeAll(java.util.List<LockRequest> requests, LockCallback<T> callback) {
		LeaseLossPolicy onLeaseLost = requests.stream()
			.anyMatch((request) -> request.onLeaseLost() == LeaseLossPolicy.INTERRUPT) ? LeaseLossPolicy.INTERRUPT
					: LeaseLossPolicy.CONTINUE;
		return LockedWork.run(acquireAll(requests), onLeaseLost, callback);
	}

	/**
	 * Acquire every requested lock, or none. Locks are taken in one global order, so two
	 * callers asking for overlapping sets can't deadlock. Duplicate names are taken once.
	 * @param requests the locks, at least one; the first request's wait time bounds the
	 * whole acquisition
	 * @return one handle for all the holds; closing it releases them all
	 * @throws LockTimeoutException if not every lock was acquired within the wait time;
	 * none is then held
	 * @throws IllegalArgumentException if no lock is requested
	 */
	LockHandle acquireAll(java.util.List<LockRequest> requests);

	/**
	 * Return a handle on the hold that a custom owner (see
	 * {@link LockRequest.Builder#owner(String)}) has on a lock, so that a thread other
	 * than the one that acquired it can extend or release it. Closing the handle releases
	 * one hold.
	 * @param name the lock
	 * @param owner the custom owner
	 * @return the hold, or empty if that owner does not hold the lock, or if Redis's
	 * reply came after the lease it reported ended, twice in a row (a late reply is read
	 * again once)
	 */
	Optional<LockHandle> findHeld(LockName name, String owner);

	/**
	 * Return whether anyone, in any process, holds {@code scope:key} now.
	 * @param scope the scope
	 * @param key the key, or {@code null}
	 * @return whether the lock is held
	 */
	boolean isLocked(String scope, @Nullable String key);

	/**
	 * Return whether the calling thread holds {@code scope:key} now, according to Redis.
	 * @param scope the scope
	 * @param key the key, or {@code null}
	 * @return whether the calling thread holds the lock
	 */
	boolean isHeldByCurrentThread(String scope, @Nullable String key);

}
