package io.github.distributedlock.redis;

import org.jspecify.annotations.Nullable;

import static io.github.distributedlock.redis.LockScripts.ACQUIRE_FAIR;
import static io.github.distributedlock.redis.LockScripts.LEAVE_FAIR;
import static io.github.distributedlock.redis.LockScripts.RELEASE_FAIR;

/**
 * A fair lock: the lock hash of a plain lock, plus a queue of waiters in Redis that gives
 * it out in arrival order across processes (see {@link FairWait}). Its waiters keep their
 * own line, so they take no reservations.
 */
final class FairKind extends LockKind {

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return new ScriptCall(ACQUIRE_FAIR, ACQUIRE_FAIR.keys(spec), attempt.owner(), attempt.hold(),
				Long.toString(spec.leaseMillis()), flag(spec.reentrant()), fenceIdleMillis,
				Long.toString(spec.fairWaiterTimeoutMillis()), flag(attempt.remainingWaitMillis() != 0));
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return new ScriptCall(RELEASE_FAIR, RELEASE_FAIR.keys(spec), owner, Long.toString(token), hold,
				Long.toString(keepMillis));
	}

	/**
	 * Build the leaving of the queue by a waiter that gave up.
	 */
	static ScriptCall leave(LockSpec spec, String owner) {
		return new ScriptCall(LEAVE_FAIR, LEAVE_FAIR.keys(spec), owner);
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return EXCLUSIVE.extend(spec, owner, token, hold, leaseMillis);
	}

	@Override
	@Nullable ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return null;
	}

	@Override
	boolean keyspaceEventsUsable() {
		return true;
	}

	@Override
	boolean queuesInRedis() {
		return true;
	}

	@Override
	boolean renewsInBatch() {
		return true;
	}

	@Override
	public String toString() {
		return "FAIR";
	}

}
