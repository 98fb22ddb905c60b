package io.github.distributedlock.redis;

import java.util.List;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A permit of a semaphore: a member {@code owner|token} of the permits sorted set, scored by
 * lease end, with a release channel of its own. Permits have no line of requests: any
 * release may let any waiter in.
 */
final class PermitKind extends LockKind {

	private static final LuaScript ACQUIRE = LuaScript.load("acquire-permit.lua", ReturnType.MULTI);

	private static final LuaScript RELEASE = LuaScript.load("release-permit.lua", ReturnType.INTEGER);

	private static final LuaScript EXTEND = LuaScript.load("extend-permit.lua", ReturnType.INTEGER);

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		String lockKey = spec.lockKey();
		return new ScriptCall(ACQUIRE, List.of(LockKeys.permits(lockKey), LockKeys.fence(lockKey)), attempt.owner(),
				Long.toString(spec.leaseMillis()), Integer.toString(spec.permits()), fenceIdleMillis);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, boolean handOff) {
		return new ScriptCall(RELEASE, List.of(LockKeys.permits(spec.lockKey()), spec.releaseChannel()),
				permitId(owner, token));
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, long leaseMillis, boolean keepLonger) {
		return new ScriptCall(EXTEND, List.of(LockKeys.permits(spec.lockKey())), permitId(owner, token),
				Long.toString(leaseMillis));
	}

	@Override
	ScriptCall isHeld(LockSpec spec, String owner, long token) {
		return new ScriptCall(ReadKind.HELD_MEMBER, List.of(LockKeys.permits(spec.lockKey())), permitId(owner, token));
	}

	private static String permitId(String owner, long token) {
		return owner + "|" + token;
	}

	@Override
	String releaseChannel(String lockKey) {
		return LockKeys.releaseChannel(LockKeys.permits(lockKey));
	}

	@Override
	String queueSuffix() {
		return "#PERMIT";
	}

	@Override
	public String toString() {
		return "PERMIT";
	}

}
