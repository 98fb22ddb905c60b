package io.github.distributedlock.redis;

import java.util.List;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A read lock: a reader in the lock's readers sorted set, scored by lease end, with its
 * hold count beside it. Its waiters line up for reservations like a plain lock's; the
 * sorted set's keyspace events don't say "free", so waiters listen on the release channel.
 */
final class ReadKind extends LockKind {

	private static final LuaScript ACQUIRE = LuaScript.load("acquire-read.lua", ReturnType.MULTI);

	private static final LuaScript RELEASE = LuaScript.load("release-read.lua", ReturnType.INTEGER);

	private static final LuaScript EXTEND = LuaScript.load("extend-read.lua", ReturnType.INTEGER);

	static final LuaScript HELD_MEMBER = LuaScript.load("held-member.lua", ReturnType.INTEGER);

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		String lockKey = spec.lockKey();
		return new ScriptCall(ACQUIRE,
				List.of(lockKey, LockKeys.fence(lockKey), LockKeys.readers(lockKey), LockKeys.readHolds(lockKey),
						LockKeys.writerIntent(lockKey), LockKeys.requests(lockKey), spec.releaseChannel()),
				attempt.owner(), Long.toString(spec.leaseMillis()), flag(spec.reentrant()), fenceIdleMillis,
				attempt.requestMember(), HandOffRequest.VALIDITY_MILLIS);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, boolean handOff) {
		String lockKey = spec.lockKey();
		return new ScriptCall(RELEASE,
				List.of(LockKeys.readers(lockKey), LockKeys.readHolds(lockKey), spec.releaseChannel()), owner);
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, long leaseMillis, boolean keepLonger) {
		String lockKey = spec.lockKey();
		return new ScriptCall(EXTEND, List.of(LockKeys.readers(lockKey), LockKeys.readHolds(lockKey)), owner,
				Long.toString(leaseMillis), flag(keepLonger));
	}

	@Override
	ScriptCall isHeld(LockSpec spec, String owner, long token) {
		return new ScriptCall(HELD_MEMBER, List.of(LockKeys.readers(spec.lockKey())), owner);
	}

	@Override
	String queueSuffix() {
		return "#READ";
	}

	@Override
	boolean handsOver() {
		return true;
	}

	@Override
	boolean wakesWhenReadersLeave() {
		return true;
	}

	@Override
	public String toString() {
		return "READ";
	}

}
