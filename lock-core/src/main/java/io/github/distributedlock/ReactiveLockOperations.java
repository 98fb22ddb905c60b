package io.github.distributedlock;

import java.util.List;

/**
 * A {@link ReactiveLockTemplate} seen by operators: what this process holds and waits for
 * through it. Gauges and actuator endpoints depend on this interface rather than on an
 * engine class, as they do on {@link LockOperations} for the blocking template.
 * <p>
 * Implementations are thread-safe. The methods return snapshots that may be stale by the
 * time they are used; they never wait for a lock.
 */
public interface ReactiveLockOperations extends ReactiveLockTemplate {

	/**
	 * Return what this process holds now through this template: holds neither released
	 * nor lost, whose lease is not over. A hold's {@link HeldLock#thread()} names its
	 * subscription, since no thread owns it.
	 * @return a snapshot of each hold, oldest first
	 */
	List<HeldLock> heldLocks();

	/**
	 * Return how many subscriptions wait for a lock now; no thread waits for any of them.
	 * @return the number of waiting subscriptions
	 */
	int waitingSubscriptions();

}
