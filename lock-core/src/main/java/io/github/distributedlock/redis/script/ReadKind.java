package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;

import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_READ;
import static io.github.distributedlock.redis.script.LockScripts.EXTEND_READ;
import static io.github.distributedlock.redis.script.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE_READ;

/**
 * A read lock: a reader (its owner's digest) in the lock's readers sorted set, scored by
 * lease end, with the ids of its holds beside it. Its waiters line up for reservations
 * like a plain lock's; the sorted set's keyspace events don't say "free", so waiters
 * listen on the release channel.
 */
final class ReadKind extends LockKind {

	@Override
	public ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return ACQUIRE_READ.call(spec,
				new ScriptArgs.AcquireRead(attempt.owner(), attempt.hold(), spec.leaseMillis(), spec.reentrant(),
						Long.parseLong(fenceIdleMillis), attempt.requestMember(), HandOffRequest.VALIDITY_MILLIS));
	}

	@Override
	public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return RELEASE_READ.call(spec, new ScriptArgs.ReleaseMember(owner, hold, keepMillis));
	}

	@Override
	public ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return EXTEND_READ.call(spec, new ScriptArgs.ExtendMember(owner, hold, leaseMillis));
	}

	@Override
	public ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return HELD_MEMBER.callWithKeys(List.of(LockKeys.readers(spec.lockKey())),
				new ScriptArgs.HeldMember(owner, ""));
	}

	@Override
	public String queueSuffix() {
		return "#READ";
	}

	@Override
	public boolean handsOver() {
		return true;
	}

	@Override
	public boolean waitsAsReader() {
		return true;
	}

	@Override
	public String toString() {
		return "READ";
	}

}
