package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;

import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_PERMIT;
import static io.github.distributedlock.redis.script.LockScripts.EXTEND_PERMIT;
import static io.github.distributedlock.redis.script.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE_PERMIT;

/**
 * A permit of a semaphore: a member {@code <owner digest>|<hold>} of the permits sorted
 * set, scored by lease end, with a release channel of its own. Permits have no line of
 * requests: any release may let any waiter in.
 */
final class PermitKind extends LockKind {

	@Override
	public ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return ACQUIRE_PERMIT.call(spec, new ScriptArgs.AcquirePermit(attempt.owner(), attempt.hold(),
				spec.leaseMillis(), spec.permits(), Long.parseLong(fenceIdleMillis)));
	}

	@Override
	public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return RELEASE_PERMIT.call(spec, new ScriptArgs.ReleaseMember(owner, hold, keepMillis));
	}

	@Override
	public ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return EXTEND_PERMIT.call(spec, new ScriptArgs.ExtendMember(owner, hold, leaseMillis));
	}

	@Override
	public ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return HELD_MEMBER.callWithKeys(List.of(LockKeys.permits(spec.lockKey())),
				new ScriptArgs.HeldMember(owner, "|" + hold));
	}

	@Override
	public String releaseChannel(String lockKey) {
		return LockKeys.releaseChannel(LockKeys.permits(lockKey));
	}

	@Override
	public String queueSuffix() {
		return "#PERMIT";
	}

	@Override
	public String toString() {
		return "PERMIT";
	}

}
