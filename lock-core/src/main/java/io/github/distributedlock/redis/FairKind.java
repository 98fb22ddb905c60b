package io.github.distributedlock.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A fair lock: the lock hash of a plain lock, plus a queue of waiters in Redis that gives it
 * out in arrival order across processes (see {@link FairWait}). Its waiters keep their own
 * line, so they take no reservations.
 */
final class FairKind extends LockKind {

	private static final LuaScript ACQUIRE = LuaScript.load("acquire-fair.lua", ReturnType.MULTI);

	private static final LuaScript RELEASE = LuaScript.load("release-fair.lua", ReturnType.INTEGER);

	private static final LuaScript LEAVE = LuaScript.load("leave-fair.lua", ReturnType.INTEGER);

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		String lockKey = spec.lockKey();
		return new ScriptCall(ACQUIRE,
				List.of(lockKey, LockKeys.fence(lockKey), LockKeys.readers(lockKey), LockKeys.fairQueue(lockKey),
						LockKeys.fairQueueHeartbeats(lockKey)),
				attempt.owner(), Long.toString(spec.leaseMillis()), flag(spec.reentrant()), fenceIdleMillis,
				Long.toString(spec.fairWaiterTimeoutMillis()), flag(attempt.remainingWaitMillis() != 0));
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, boolean handOff) {
		return new ScriptCall(RELEASE, queueKeys(spec), owner, Long.toString(token));
	}

	/**
	 * Build the leaving of the queue by a waiter that gave up.
	 */
	static ScriptCall leave(LockSpec spec, String owner) {
		return new ScriptCall(LEAVE, queueKeys(spec), owner);
	}

	private static List<String> queueKeys(LockSpec spec) {
		String lockKey = spec.lockKey();
		return List.of(lockKey, spec.releaseChannel(), LockKeys.fairQueue(lockKey),
				LockKeys.fairQueueHeartbeats(lockKey));
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, long leaseMillis, boolean keepLonger) {
		return EXCLUSIVE.extend(spec, owner, token, leaseMillis, keepLonger);
	}

	@Override
	@Nullable ScriptCall isHeld(LockSpec spec, String owner, long token) {
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
