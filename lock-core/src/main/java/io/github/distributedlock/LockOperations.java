package io.github.distributedlock;

import java.util.List;

/**
 * A {@link LockTemplate} seen by operators and by the application's lifecycle: what this
 * process holds and waits for, freeing a lock whose holder is gone, and shutting down.
 * Actuator endpoints, gauges and shutdown hooks depend on this interface rather than on
 * an engine class.
 * <p>
 * Implementations are thread-safe. The read methods return snapshots that may be stale by
 * the time they are used; they never wait for a lock.
 */
public interface LockOperations extends LockTemplate, AutoCloseable {

	/**
	 * Return what this process holds now.
	 * @return a snapshot of each hold, oldest first
	 */
	List<HeldLock> heldLocks();

	/**
	 * Return how many threads of this process wait for a lock now.
	 * @return the number of waiting threads
	 */
	int waitingThreads();

	/**
	 * Return how many locks have waiters in this process, or lingering subscriptions.
	 * @return the number of local wait queues
	 */
	int waitQueueCount();

	/**
	 * Delete a lock whoever holds it, in any process, and wake its waiters. This breaks
	 * mutual exclusion for the current holder, whose release then throws
	 * {@link LockLeaseLostException}: meant for freeing a lock whose holder is known to
	 * be gone.
	 * @param name the lock
	 * @return whether a lock was deleted
	 * @throws LockAccessException if Redis cannot be reached
	 */
	boolean forceRelease(LockName name);

	/**
	 * Stop: threads waiting for a lock fail with {@link LockAccessException} and
	 * subscriptions close. Locks still held stay until their holders release them or
	 * their leases end. Closing again does nothing.
	 */
	@Override
	void close();

}
