package io.github.distributedlock.redis.script;

import java.util.List;

import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;

import org.jspecify.annotations.Nullable;

import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE;
import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_ALL;
import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_FAIR;
import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_PERMIT;
import static io.github.distributedlock.redis.script.LockScripts.ACQUIRE_READ;
import static io.github.distributedlock.redis.script.LockScripts.DROP_INTENT;
import static io.github.distributedlock.redis.script.LockScripts.EXTEND;
import static io.github.distributedlock.redis.script.LockScripts.EXTEND_PERMIT;
import static io.github.distributedlock.redis.script.LockScripts.EXTEND_READ;
import static io.github.distributedlock.redis.script.LockScripts.HELD_MEMBER;
import static io.github.distributedlock.redis.script.LockScripts.LEAVE_FAIR;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE_FAIR;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE_PERMIT;
import static io.github.distributedlock.redis.script.LockScripts.RELEASE_READ;
import static io.github.distributedlock.redis.script.LockScripts.RENEW;

/**
 * What a hold is in Redis: the scripts that take, release and extend it, their keys and
 * arguments, the channel its releases are published on, and what the wait path may do
 * with it. The command layer runs what a kind builds and never asks which kind it is.
 */
public enum LockKind {

	/**
	 * A plain lock: the lock hash {owner digest, holds, token, a field per hold}.
	 */
	EXCLUSIVE {

		@Override
		public ScriptCall acquire(LockSpec spec, Acquisition.Attempt attempt, long fenceIdleMillis) {
			return ACQUIRE.call(spec, new ScriptArgs.Acquire(attempt.owner(), attempt.hold(), spec.leaseMillis(),
					attempt.remainingWaitMillis(), requestMember(attempt.request()), HandOffRequest.VALIDITY_MILLIS,
					attempt.mayHaveIntent(), attempt.holdsIt(), spec.reentrant(), fenceIdleMillis, attempt.block()));
		}

		@Override
		public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff,
				long keepMillis) {
			return RELEASE.call(spec, new ScriptArgs.Release(owner, token, hold, handOff, keepMillis, null));
		}

	},

	/**
	 * A fair lock: a plain lock's hash, plus a Redis queue that serves waiters in arrival
	 * order (see {@code FairAcquisition}).
	 */
	FAIR {

		@Override
		public ScriptCall acquire(LockSpec spec, Acquisition.Attempt attempt, long fenceIdleMillis) {
			return ACQUIRE_FAIR.call(spec,
					new ScriptArgs.AcquireFair(attempt.owner(), attempt.hold(), spec.leaseMillis(), spec.reentrant(),
							fenceIdleMillis, spec.fairWaiterTimeoutMillis(), attempt.remainingWaitMillis() != 0));
		}

		@Override
		public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff,
				long keepMillis) {
			return RELEASE_FAIR.call(spec, new ScriptArgs.ReleaseFair(owner, token, hold, keepMillis));
		}

	},

	/**
	 * A read lock: a reader (its owner's digest) in the lock's readers sorted set, scored
	 * by lease end, with the ids of its holds beside it. The sorted set's keyspace events
	 * don't say "free", so waiters listen on the release channel.
	 */
	READ {

		@Override
		public ScriptCall acquire(LockSpec spec, Acquisition.Attempt attempt, long fenceIdleMillis) {
			return ACQUIRE_READ.call(spec,
					new ScriptArgs.AcquireRead(attempt.owner(), attempt.hold(), spec.leaseMillis(), spec.reentrant(),
							fenceIdleMillis, requestMember(attempt.request()), HandOffRequest.VALIDITY_MILLIS));
		}

		@Override
		public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff,
				long keepMillis) {
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

	},

	/**
	 * A permit of a semaphore: a member {@code <owner digest>|<hold>} of the permits
	 * sorted set, scored by lease end, with a release channel of its own. Permits have no
	 * line of requests: any release may let any waiter in.
	 */
	PERMIT {

		@Override
		public ScriptCall acquire(LockSpec spec, Acquisition.Attempt attempt, long fenceIdleMillis) {
			return ACQUIRE_PERMIT.call(spec, new ScriptArgs.AcquirePermit(attempt.owner(), attempt.hold(),
					spec.leaseMillis(), spec.permits(), fenceIdleMillis));
		}

		@Override
		public ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff,
				long keepMillis) {
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

	};

	/**
	 * Build one attempt of the acquire script.
	 */
	public abstract ScriptCall acquire(LockSpec spec, Acquisition.Attempt attempt, long fenceIdleMillis);

	/**
	 * Build the release of one hold; the script returns the holds left, -1 if the lock
	 * was gone, -2 if someone else held it. Run twice, it releases the hold once.
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 */
	public abstract ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff,
			long keepMillis);

	/**
	 * Build the release of the hold that an attempt whose reply never came may have
	 * taken: named by its owner and hold id alone, as its token was never learned (token
	 * {@code 0}, which the release scripts read so). Run twice, or where the attempt took
	 * nothing, it releases nothing; it never takes the lock.
	 */
	public ScriptCall releaseUnanswered(LockSpec spec, String owner, String hold, boolean handOff) {
		return release(spec, owner, 0, hold, handOff, 0);
	}

	/**
	 * Build a new lease for one hold; the script returns 1, -1 if gone, -2 if taken. The
	 * lease of another hold of the lock is never shortened.
	 */
	public ScriptCall extend(LockSpec spec, String owner, long token, String hold, long leaseMillis) {
		return EXTEND.call(spec, new ScriptArgs.Extend(owner, token, hold, leaseMillis));
	}

	/**
	 * Build the check of whether a hold is still the lock's, or {@code null} if this kind
	 * is checked by reading the lock hash's owner and token.
	 */
	public @Nullable ScriptCall isHeld(LockSpec spec, String owner, long token, String hold) {
		return null;
	}

	public String releaseChannel(String lockKey) {
		return LockKeys.releaseChannel(lockKey);
	}

	/**
	 * Return what distinguishes this kind's local wait queue from the others of one lock.
	 */
	public String queueSuffix() {
		return "";
	}

	/**
	 * Return whether waiters line up in the lock's line of requests, so that the last
	 * release reserves the lock for the oldest (see {@link HandOffRequest}).
	 */
	public boolean handsOver() {
		return this == EXCLUSIVE || this == READ;
	}

	/**
	 * Return whether a hold is the lock hash itself, not a member of a sorted set: then
	 * the key's keyspace events say when it is free, the watchdog renews it in batches,
	 * and {@link #isHeld} reads the hash.
	 */
	public boolean inLockHash() {
		return this == EXCLUSIVE || this == FAIR;
	}

	/**
	 * Return whether waiters queue in Redis instead of the local FIFO queue.
	 */
	public boolean queuesInRedis() {
		return this == FAIR;
	}

	public boolean multiLockable() {
		return this == EXCLUSIVE;
	}

	/**
	 * Return whether an attempt held back by readers sets a writer intent, which the
	 * writer drops when it takes the lock or stops waiting ({@code drop-intent.lua}).
	 */
	public boolean setsWriterIntent() {
		return this == EXCLUSIVE;
	}

	/**
	 * Return whether its waiters are readers, whom the {@code readers-left} message does
	 * not wake: only a writer waits for the last reader to leave.
	 */
	public boolean waitsAsReader() {
		return this == READ;
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

	public static ScriptCall leaveQueue(LockSpec spec, String owner, String hold) {
		return LEAVE_FAIR.call(spec, new ScriptArgs.LeaveFair(owner, hold));
	}

	/**
	 * Build one attempt to take several plain locks, all or nothing.
	 */
	public static ScriptCall acquireAll(List<LockSpec> specs, String owner, String hold, boolean reentrant,
			@Nullable HandOffRequest handOff, long fenceIdleMillis) {
		List<Long> leases = specs.stream().map(LockSpec::leaseMillis).toList();
		return ACQUIRE_ALL.call(specs, new ScriptArgs.AcquireAll(owner, hold, reentrant, fenceIdleMillis,
				requestMember(handOff), HandOffRequest.VALIDITY_MILLIS, leases));
	}

	/**
	 * Build the renewal of several plain locks' holds in one script; it returns, for
	 * each, 1 renewed, -1 gone, -2 held by someone else (or that hold was released).
	 */
	public static ScriptCall renew(List<Grant> grants) {
		List<LockSpec> specs = grants.stream().map(Grant::spec).toList();
		List<ScriptArgs.Renew.Renewal> renewals = grants.stream()
			.map((grant) -> new ScriptArgs.Renew.Renewal(grant.owner(), grant.token(), grant.hold(),
					grant.spec().leaseMillis()))
			.toList();
		return RENEW.call(specs, new ScriptArgs.Renew(renewals));
	}

	private static String requestMember(@Nullable HandOffRequest handOff) {
		return (handOff != null) ? handOff.member() : "";
	}

}
