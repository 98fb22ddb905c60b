package io.github.distributedlock;

import org.springframework.context.ApplicationEvent;

/**
 * Published when the release of a hold did not get through, because Redis could not be
 * reached or failed. The lock stays taken, unrenewed, until its lease ends, so that
 * others may wait up to that long for it. Unlike {@link LockLostEvent}, it says nothing
 * of the work: when the work ended before the lease could have run out, it ran wholly
 * under the lock, and {@link LockTemplate#execute} returns its result.
 * <p>
 * The Boot auto-configuration publishes it after the fact, in order with
 * {@link LockLostEvent}, on a thread of its own.
 */
public class LockReleaseFailedEvent extends ApplicationEvent {

	private final LockName lockName;

	private final long fencingToken;

	private final LockAccessException failure;

	public LockReleaseFailedEvent(LockContext hold, LockAccessException failure) {
		super(hold);
		this.lockName = hold.name();
		this.fencingToken = hold.fencingToken();
		this.failure = failure;
	}

	/**
	 * Return the name of the lock whose release failed.
	 * @return the lock name
	 */
	public LockName getLockName() {
		return this.lockName;
	}

	/**
	 * Return the fencing token of the hold.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return why the release failed.
	 * @return the failure, whose cause is the Redis client's exception
	 */
	public LockAccessException getFailure() {
		return this.failure;
	}

}
