package io.github.distributedlock;

import org.springframework.context.ApplicationEvent;

/**
 * Published when a hold turns out to be lost: the watchdog found its lock gone or taken,
 * or its release or extension came too late. The work protected by it may have overlapped
 * with another holder's; writes fenced with {@link #getFencingToken()} are safe from
 * that.
 * <p>
 * The Boot auto-configuration publishes it after the fact, in order, on a thread of its
 * own, never on the thread that renews leases or released the lock.
 */
public class LockLostEvent extends ApplicationEvent {

	private final LockName lockName;

	private final long fencingToken;

	public LockLostEvent(LockContext lost) {
		super(lost);
		this.lockName = lost.name();
		this.fencingToken = lost.fencingToken();
	}

	/**
	 * Return the name of the lost lock.
	 * @return the lock name
	 */
	public LockName getLockName() {
		return this.lockName;
	}

	/**
	 * Return the fencing token of the lost hold.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
