package io.github.distributedlock.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import static io.github.distributedlock.redis.LockScripts.ACQUIRE;
import static io.github.distributedlock.redis.LockScripts.ACQUIRE_ALL;
import static io.github.distributedlock.redis.LockScripts.DROP_INTENT;
import static io.github.distributedlock.redis.LockScripts.EXTEND;
import static io.github.distributedlock.redis.LockScripts.RELEASE;
import static io.github.distributedlock.redis.LockScripts.RENEW;

/**
 * A plain lock: the lock hash {owner, holds, token}. Its waiters line up for
 * reservations, its keyspace events are usable, a multi-lock can take several at once,
 * and the watchdog renews many in one script.
 */
final class ExclusiveKind extends LockKind {

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return new ScriptCall(ACQUIRE, ACQUIRE.keys(spec), attempt.owner(), Long.toString(spec.leaseMillis()),
				flag(spec.reentrant()), fenceIdleMillis, Long.toString(attempt.remainingWaitMillis()),
				flag(attempt.mayHaveIntent()), flag(attempt.holdsIt()), attempt.requestMember(),
				HandOffRequest.VALIDITY_MILLIS);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, boolean handOff, long keepMillis) {
		return new ScriptCall(RELEASE, RELEASE.keys(spec), owner, Long.toString(token), flag(handOff),
				Long.toString(keepMillis));
	}

	/**
	 * Build the withdrawal of a waiter's request from a lock's line (locks and read locks
	 * share it); a reservation for it passes on, and a hold is never touched.
	 */
	static ScriptCall withdraw(LockSpec spec, HandOffRequest request, boolean handOff) {
		return new ScriptCall(RELEASE, RELEASE.keys(spec), "", "", flag(handOff), "0", request.member());
	}

	/**
	 * Build the dropping of a writer's intent, for a writer that stops waiting without
	 * the lock; another writer's intent stays.
	 */
	static ScriptCall dropIntent(LockSpec spec, String owner) {
		return new ScriptCall(DROP_INTENT, DROP_INTENT.keys(spec), owner);
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, long leaseMillis, boolean keepLonger) {
		return new ScriptCall(EXTEND, EXTEND.keys(spec), owner, Long.toString(token), Long.toString(leaseMillis),
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
		Object[] args = new Object[5 + specs.size()];
		args[0] = owner;
		args[1] = flag(reentrant);
		args[2] = fenceIdleMillis;
		args[3] = (handOff != null) ? handOff.member() : "";
		args[4] = HandOffRequest.VALIDITY_MILLIS;
		for (int i = 0; i < specs.size(); i++) {
			args[5 + i] = Long.toString(specs.get(i).leaseMillis());
		}
		return new ScriptCall(ACQUIRE_ALL, ACQUIRE_ALL.keys(specs), args);
	}

	/**
	 * Build the renewal of several holds' leases in one script; it returns, for each, 1
	 * renewed, -1 gone, -2 held by someone else.
	 */
	static ScriptCall renew(List<RedisLockHandle> holds) {
		return renew(holds.stream().map(RedisLockHandle::spec).toList(),
				holds.stream().map(RedisLockHandle::owner).toList(),
				holds.stream().mapToLong(RedisLockHandle::fencingToken).toArray());
	}

	/**
	 * Build the renewal of several holds' leases in one script, given each hold's lock,
	 * owner and token (the reactive engine's holds are no {@link RedisLockHandle}).
	 */
	static ScriptCall renew(List<LockSpec> specs, List<String> owners, long[] tokens) {
		Object[] args = new Object[specs.size() * 3];
		for (int i = 0; i < specs.size(); i++) {
			args[3 * i] = owners.get(i);
			args[3 * i + 1] = Long.toString(tokens[i]);
			args[3 * i + 2] = Long.toString(specs.get(i).leaseMillis());
		}
		return new ScriptCall(RENEW, RENEW.keys(specs), args);
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
	boolean setsWriterIntent() {
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
