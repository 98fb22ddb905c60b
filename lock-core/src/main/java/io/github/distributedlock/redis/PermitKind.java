package io.github.distributedlock.redis;

import java.util.List;

import static io.github.distributedlock.redis.LockScripts.ACQUIRE_PERMIT;
import static io.github.distributedlock.redis.LockScripts.EXTEND_PERMIT;
import static io.github.distributedlock.redis.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.LockScripts.RELEASE_PERMIT;

/**
 * A permit of a semaphore: a member {@code <owner digest>|<hold>} of the permits sorted
 * set, scored by lease end, with a release channel of its own. Permits have no line of
 * requests: any release may let any waiter in.
 */
final class PermitKind extends LockKind {

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return new ScriptCall(ACQUIRE_PERMIT, ACQUIRE_PERMIT.keys(spec), attempt.owner(), attempt.hold(),
				Long.toString(spec.leaseMillis()), Integer.toString(spec.permits()), fenceIdleMillis);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return new ScriptCall(RELEASE_PERMIT, RELEASE_PERMIT.keys(spec), owner, hold, Long.toString(keepMillis));
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return new ScriptCall(EXTEND_PERMIT, EXTEND_PERMIT.keys(spec), owner, hold, Long.toString(leaseMillis));
	}

	@Override
	ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return new ScriptCall(HELD_MEMBER, List.of(LockKeys.permits(spec.lockKey())), owner, "|" + hold);
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
