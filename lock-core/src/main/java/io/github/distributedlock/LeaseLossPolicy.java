package io.github.distributedlock;

/**
 * What happens to the work running under a lock when this process finds the lock's lease
 * lost before the work ends: a renewal or extension found the lock expired or taken by
 * another owner, or the lease ran out without a renewal (Redis could not be reached, or
 * the lease was never renewed).
 * <p>
 * It applies where the template runs the work: {@link LockTemplate#execute},
 * {@link LockTemplate#executeAll}, {@link ReactiveLockTemplate#execute},
 * {@link ReactiveLockTemplate#locked} and {@link DistributedLock @DistributedLock}
 * methods. A handle from {@code acquire} has no work to stop; watch it with
 * {@link LockHandle#whenLost()} or {@link ReactiveLockHandle#whenLost()} instead.
 */
public enum LeaseLossPolicy {

	/**
	 * Let the work run to its end; the release then throws
	 * {@link LockLeaseLostException}. The default.
	 */
	CONTINUE,

	/**
	 * Stop the work: interrupt the thread that runs it while it is inside the locked
	 * section (never after it left), or cancel the subscription of reactive work, which
	 * cancels a {@code CompletableFuture} or Kotlin coroutine it runs. The caller gets
	 * {@link LockLeaseLostException}, and the thread's interrupt status is cleared again
	 * before the call returns.
	 */
	INTERRUPT

}
