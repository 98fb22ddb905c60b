package io.github.distributedlock.redis;

import java.util.List;

import static io.github.distributedlock.redis.LockScripts.ACQUIRE_PERMIT;
import static io.github.distributedlock.redis.LockScripts.EXTEND_PERMIT;
import static io.github.distributedlock.redis.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.LockScripts.RELEASE_PERMIT;

/**
 * A permit of a semaphore: a member {@code owner|token} of the permits sorted set, scored
 * by lease end, with a release channel of its own. Permits have no line of requests: any
 * release may let any waiter in.
 */
final class PermitKind extends LockKind {

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return new ScriptCall(ACQUIRE_PERMIT, ACQUIRE_PERMIT.keys(spec), attempt.owner(),
				Long.toString(spec.leaseMillis()), Integer.toString(spec.permits()), fenceIdleMillis);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, boolean handOff, long keepMillis) {
		return new ScriptCall(RELEASE_PERMIT, RELEASE_PERMIT.keys(spec), permitId(owner, token),
				Long.toString(keepMillis));
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, long leaseMillis, boolean keepLonger) {
		return new ScriptCall(EXTEND_PERMIT, EXTEND_PERMIT.keys(spec), permitId(owner, token),
				Long.toString(leaseMillis));
	}

	@Override
	ScriptCall isHeld(LockSpec spec, String owner, long token) {
		return new ScriptCall(HELD_MEMBER, List.of(LockKeys.permits(spec.lockKey())), permitId(owner, token));
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
