package io.github.distributedlock.redis;

import java.util.List;

import static io.github.distributedlock.redis.LockScripts.ACQUIRE_READ;
import static io.github.distributedlock.redis.LockScripts.EXTEND_READ;
import static io.github.distributedlock.redis.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.LockScripts.RELEASE_READ;

/**
 * A read lock: a reader (its owner's digest) in the lock's readers sorted set, scored by
 * lease end, with the ids of its holds beside it. Its waiters line up for reservations
 * like a plain lock's; the sorted set's keyspace events don't say "free", so waiters
 * listen on the release channel.
 */
final class ReadKind extends LockKind {

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return new ScriptCall(ACQUIRE_READ, ACQUIRE_READ.keys(spec), attempt.owner(), attempt.hold(),
				Long.toString(spec.leaseMillis()), flag(spec.reentrant()), fenceIdleMillis, attempt.requestMember(),
				HandOffRequest.VALIDITY_MILLIS);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return new ScriptCall(RELEASE_READ, RELEASE_READ.keys(spec), owner, hold, Long.toString(keepMillis));
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return new ScriptCall(EXTEND_READ, EXTEND_READ.keys(spec), owner, hold, Long.toString(leaseMillis));
	}

	@Override
	ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return new ScriptCall(HELD_MEMBER, List.of(LockKeys.readers(spec.lockKey())), owner, "");
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
	boolean waitsAsReader() {
		return true;
	}

	@Override
	public String toString() {
		return "READ";
	}

}
