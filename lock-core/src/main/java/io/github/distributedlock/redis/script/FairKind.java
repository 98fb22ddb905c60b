package io.github.distributedlock.redis.script;

import io.github.distributedlock.redis.core.LockSpec;

import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_FAIR;
import static io.github.distributedlock.redis.script.LockScripts.LEAVE_FAIR;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE_FAIR;

/**
 * A fair lock: the lock hash of a plain lock, plus a queue of waiters in Redis that gives
 * it out in arrival order across processes (see {@code FairAcquisition}). Its waiters
 * keep their own line, so they take no reservations.
 */
public final class FairKind extends LockKind {

	@Override
	public ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return ACQUIRE_FAIR.call(spec,
				new ScriptArgs.AcquireFair(attempt.owner(), attempt.hold(), spec.leaseMillis(), spec.reentrant(),
						Long.parseLong(fenceIdleMillis), spec.fairWaiterTimeoutMillis(),
						attempt.remainingWaitMillis() != 0));
	}

	@Override
	public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return RELEASE_FAIR.call(spec, new ScriptArgs.ReleaseFair(owner, token, hold, keepMillis));
	}

	/**
	 * Build the leaving of the queue by a waiter that gave up.
	 */
	public static ScriptCall leave(LockSpec spec, String owner) {
		return LEAVE_FAIR.call(spec, new ScriptArgs.LeaveFair(owner));
	}

	@Override
	public boolean inLockHash() {
		return true;
	}

	@Override
	public boolean queuesInRedis() {
		return true;
	}

	@Override
	public String toString() {
		return "FAIR";
	}

}
