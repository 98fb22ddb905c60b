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
 * A plain lock: the lock hash {owner digest, holds, token, a field per hold}. Its waiters
 * line up for reservations, its keyspace events are usable, a multi-lock can take several
 * at once, and the watchdog renews many in one script.
 */
final class ExclusiveKind extends LockKind {

	@Override
	ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return new ScriptCall(ACQUIRE, ACQUIRE.keys(spec), attempt.owner(), attempt.hold(),
				Long.toString(spec.leaseMillis()), flag(spec.reentrant()), fenceIdleMillis,
				Long.toString(attempt.remainingWaitMillis()), flag(attempt.mayHaveIntent()), flag(attempt.holdsIt()),
				attempt.requestMember(), HandOffRequest.VALIDITY_MILLIS);
	}

	@Override
	ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return new ScriptCall(RELEASE, RELEASE.keys(spec), owner, Long.toString(token), hold, flag(handOff),
				Long.toString(keepMillis));
	}

	/**
	 * Build the withdrawal of a waiter's request from a lock's line (locks and read locks
	 * share it); a reservation for it passes on, and a hold is never touched.
	 */
	static ScriptCall withdraw(LockSpec spec, HandOffRequest request, boolean handOff) {
		return new ScriptCall(RELEASE, RELEASE.keys(spec), "", "", "", flag(handOff), "0", request.member());
	}

	/**
	 * Build the dropping of a writer's intent, for a writer that stops waiting without
	 * the lock; another writer's intent stays.
	 */
	static ScriptCall dropIntent(LockSpec spec, String owner) {
		return new ScriptCall(DROP_INTENT, DROP_INTENT.keys(spec), owner);
	}

	@Override
	ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return new ScriptCall(EXTEND, EXTEND.keys(spec), owner, Long.toString(token), hold, Long.toString(leaseMillis));
	}

	@Override
	@Nullable ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return null;
	}

	/**
	 * Build one attempt to take several locks, all or nothing.
	 */
	static ScriptCall acquireAll(List<LockSpec> specs, String owner, String hold, boolean reentrant,
			@Nullable HandOffRequest handOff, String fenceIdleMillis) {
		Object[] args = new Object[6 + specs.size()];
		args[0] = owner;
		args[1] = hold;
		args[2] = flag(reentrant);
		args[3] = fenceIdleMillis;
		args[4] = (handOff != null) ? handOff.member() : "";
		args[5] = HandOffRequest.VALIDITY_MILLIS;
		for (int i = 0; i < specs.size(); i++) {
			args[6 + i] = Long.toString(specs.get(i).leaseMillis());
		}
		return new ScriptCall(ACQUIRE_ALL, ACQUIRE_ALL.keys(specs), args);
	}

	/**
	 * Build the renewal of several holds' leases in one script, given what each hold won;
	 * it returns, for each, 1 renewed, -1 gone, -2 held by someone else (or that hold was
	 * released).
	 */
	static ScriptCall renew(List<Grant> grants) {
		List<LockSpec> specs = grants.stream().map(Grant::spec).toList();
		Object[] args = new Object[grants.size() * 4];
		for (int i = 0; i < grants.size(); i++) {
			Grant grant = grants.get(i);
			args[4 * i] = grant.owner();
			args[4 * i + 1] = Long.toString(grant.token());
			args[4 * i + 2] = grant.hold();
			args[4 * i + 3] = Long.toString(grant.spec().leaseMillis());
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
