package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A plain lock: the lock hash {owner, holds, token}. Its waiters line up for reservations,
 * its keyspace events are usable, a multi-lock can take several at once, and the watchdog
 * renews many in one script.
 */
final class ExclusiveKind extends LockKind {

	private static final LuaScript ACQUIRE = LuaScript.load("acquire.lua", ReturnType.MULTI);

	private static final LuaScript RELEASE = LuaScript.load("release.lua", ReturnType.INTEGER);

	private static final LuaScript EXTEND = LuaScript.load("extend.lua", ReturnType.INTEGER);

	private static final LuaScript ACQUIRE_ALL = LuaScript.load("acquire-all.lua", ReturnType.MULTI);

	private static final LuaScript RENEW = LuaScript.load("renew.lua", ReturnType.MULTI);

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		String lockKey = spec.lockKey();
		return new ScriptCall(ACQUIRE,
				List.of(lockKey, LockKeys.fence(lockKey), LockKeys.readers(lockKey), LockKeys.writerIntent(lockKey),
						LockKeys.requests(lockKey)),
				attempt.owner(), Long.toString(spec.leaseMillis()), flag(spec.reentrant()), fenceIdleMillis,
				Long.toString(attempt.remainingWaitMillis()), flag(attempt.mayHaveIntent()), flag(attempt.holdsIt()),
				attempt.requestMember(), HandOffRequest.VALIDITY_MILLIS);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, boolean handOff) {
		return new ScriptCall(RELEASE, releaseKeys(spec.lockKey()), owner, Long.toString(token), flag(handOff));
	}

	/**
	 * Build the withdrawal of a waiter's request from a lock's line (locks and read locks
	 * share it); a reservation for it passes on, and a hold is never touched.
	 */
	static ScriptCall withdraw(String lockKey, HandOffRequest request, boolean handOff) {
		return new ScriptCall(RELEASE, releaseKeys(lockKey), "", "", flag(handOff), request.member());
	}

	private static List<String> releaseKeys(String lockKey) {
		return List.of(lockKey, LockKeys.releaseChannel(lockKey), LockKeys.requests(lockKey),
				LockKeys.readers(lockKey));
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, long leaseMillis, boolean keepLonger) {
		return new ScriptCall(EXTEND, List.of(spec.lockKey()), owner, Long.toString(token), Long.toString(leaseMillis),
				flag(keepLonger));
	}

	@Override
	@Nullable ScriptCall isHeld(LockSpec spec, String owner, long token) {
		return null;
	}

	/**
	 * Build one attempt to take several locks, all or nothing.
	 */
	static ScriptCall acquireAll(List<LockSpec> specs, String owner, boolean reentrant,
			@Nullable HandOffRequest handOff, String fenceIdleMillis) {
		List<String> keys = new ArrayList<>(specs.size() * 5);
		Object[] args = new Object[5 + specs.size()];
		args[0] = owner;
		args[1] = flag(reentrant);
		args[2] = fenceIdleMillis;
		args[3] = (handOff != null) ? handOff.member() : "";
		args[4] = HandOffRequest.VALIDITY_MILLIS;
		for (int i = 0; i < specs.size(); i++) {
			LockSpec spec = specs.get(i);
			String lockKey = spec.lockKey();
			keys.add(lockKey);
			keys.add(LockKeys.fence(lockKey));
			keys.add(LockKeys.readers(lockKey));
			keys.add(LockKeys.requests(lockKey));
			keys.add(spec.releaseChannel());
			args[5 + i] = Long.toString(spec.leaseMillis());
		}
		return new ScriptCall(ACQUIRE_ALL, keys, args);
	}

	/**
	 * Build the renewal of several holds' leases in one script; it returns, for each, 1
	 * renewed, -1 gone, -2 held by someone else.
	 */
	static ScriptCall renew(List<RedisLockHandle> holds) {
		List<String> keys = new ArrayList<>(holds.size());
		Object[] args = new Object[holds.size() * 3];
		for (int i = 0; i < holds.size(); i++) {
			RedisLockHandle hold = holds.get(i);
			keys.add(hold.spec().lockKey());
			args[3 * i] = hold.owner();
			args[3 * i + 1] = Long.toString(hold.fencingToken());
			args[3 * i + 2] = Long.toString(hold.spec().leaseMillis());
		}
		return new ScriptCall(RENEW, keys, args);
	}

	@Override
	boolean handsOver() {
		return true;
	}

	@Override
	boolean keyspaceEventsUsable() {
		return true;
	}

	@Override
	boolean multiLockable() {
		return true;
	}

	@Override
	boolean renewsInBatch() {
		return true;
	}

	@Override
	public String toString() {
		return "EXCLUSIVE";
	}

}
