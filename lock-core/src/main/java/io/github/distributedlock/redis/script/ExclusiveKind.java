package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;

import org.jspecify.annotations.Nullable;

import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE;
import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_ALL;
import static io.github.distributedlock.redis.script.LockScripts.DROP_INTENT;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE;
import static io.github.distributedlock.redis.script.LockScripts.RENEW;

/**
 * A plain lock: the lock hash {owner digest, holds, token, a field per hold}. Its waiters
 * line up for reservations, its keyspace events are usable, a multi-lock can take several
 * at once, and the watchdog renews many in one script.
 */
public final class ExclusiveKind extends LockKind {

	@Override
	public ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis) {
		return ACQUIRE.call(spec,
				new ScriptArgs.Acquire(attempt.owner(), attempt.hold(), spec.leaseMillis(),
						attempt.remainingWaitMillis(), attempt.requestMember(), HandOffRequest.VALIDITY_MILLIS,
						attempt.mayHaveIntent(), attempt.holdsIt(), spec.reentrant(), Long.parseLong(fenceIdleMillis)));
	}

	@Override
	public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff, long keepMillis) {
		return RELEASE.call(spec, new ScriptArgs.Release(owner, token, hold, handOff, keepMillis, null));
	}

	/**
	 * Build the withdrawal of a waiter's request from a lock's line (locks and read locks
	 * share it); a reservation for it passes on, and a hold is never touched.
	 */
	public static ScriptCall withdraw(LockSpec spec, HandOffRequest request, boolean handOff) {
		// The script reads neither owner, token nor hold of a withdrawal.
		return RELEASE.call(spec, new ScriptArgs.Release("", 0, "", handOff, 0, request.member()));
	}

	/**
	 * Build the dropping of a writer's intent, for a writer that stops waiting without
	 * the lock; another writer's intent stays.
	 */
	public static ScriptCall dropIntent(LockSpec spec, String owner) {
		return DROP_INTENT.call(spec, new ScriptArgs.DropIntent(owner));
	}

	/**
	 * Build one attempt to take several locks, all or nothing.
	 */
	public static ScriptCall acquireAll(List<LockSpec> specs, String owner, String hold, boolean reentrant,
			@Nullable HandOffRequest handOff, String fenceIdleMillis) {
		List<Long> leases = specs.stream().map(LockSpec::leaseMillis).toList();
		return ACQUIRE_ALL.call(specs,
				new ScriptArgs.AcquireAll(owner, hold, reentrant, Long.parseLong(fenceIdleMillis),
						(handOff != null) ? handOff.member() : "", HandOffRequest.VALIDITY_MILLIS, leases));
	}

	/**
	 * Build the renewal of several holds' leases in one script, given what each hold won;
	 * it returns, for each, 1 renewed, -1 gone, -2 held by someone else (or that hold was
	 * released).
	 */
	public static ScriptCall renew(List<Grant> grants) {
		List<LockSpec> specs = grants.stream().map(Grant::spec).toList();
		List<ScriptArgs.Renew.Renewal> renewals = grants.stream()
			.map((grant) -> new ScriptArgs.Renew.Renewal(grant.owner(), grant.token(), grant.hold(),
					grant.spec().leaseMillis()))
			.toList();
		return RENEW.call(specs, new ScriptArgs.Renew(renewals));
	}

	@Override
	public boolean handsOver() {
		return true;
	}

	@Override
	public boolean inLockHash() {
		return true;
	}

	@Override
	public boolean multiLockable() {
		return true;
	}

	@Override
	public boolean setsWriterIntent() {
		return true;
	}

	@Override
	public String toString() {
		return "EXCLUSIVE";
	}

}
