package io.github.distributedlock.redis.script;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;

import org.jspecify.annotations.Nullable;

import static io.github.distributedlock.redis.script.LockScripts.EXTEND;

/**
 * What a hold is in Redis: the scripts that take, release and extend it, their keys and
 * arguments, the channel its releases are published on, and what the wait path may do
 * with it. One instance per kind; the command layer runs what a kind builds and never
 * asks which kind it is.
 */
public abstract sealed class LockKind permits ExclusiveKind, FairKind, ReadKind, PermitKind {

	/** A plain lock: the lock hash itself. */
	public static final LockKind EXCLUSIVE = new ExclusiveKind();

	/**
	 * A lock whose waiters queue in Redis and get it in arrival order across processes.
	 */
	public static final LockKind FAIR = new FairKind();

	/** A reader in the lock's readers sorted set. */
	public static final LockKind READ = new ReadKind();

	/** A permit in a semaphore's permits sorted set. */
	public static final LockKind PERMIT = new PermitKind();

	/**
	 * Build one attempt of the acquire script.
	 * @param spec the lock
	 * @param attempt what this attempt carries
	 * @param fenceIdleMillis the idle time after which the fencing counter may vanish
	 */
	public abstract ScriptCall acquire(LockSpec spec, Attempt attempt, String fenceIdleMillis);

	/**
	 * Build the release of one hold; the script returns the holds left, -1 if the lock
	 * was gone, -2 if someone else held it. Run twice, it releases the hold once.
	 * @param hold the hold's id
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 */
	public abstract ScriptCall release(LockSpec spec, String owner, long token, String hold, boolean handOff,
			long keepMillis);

	/**
	 * Build a new lease for one hold; the script returns 1, -1 if gone, -2 if taken. The
	 * lease of another hold of the lock is never shortened.
	 * @param hold the hold's id
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

	/**
	 * Return the channel this kind's releases are published on.
	 */
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
		return false;
	}

	/**
	 * Return whether a hold is the lock hash itself (owner, token, a field per hold), not
	 * a member of a sorted set: then the key's keyspace events say when it is free, the
	 * watchdog renews it in batches with the renew script, and {@link #isHeld} reads the
	 * hash's owner and token.
	 */
	public boolean inLockHash() {
		return false;
	}

	/**
	 * Return whether waiters queue in Redis instead of the local FIFO queue.
	 */
	public boolean queuesInRedis() {
		return false;
	}

	/**
	 * Return whether a multi-lock may take it.
	 */
	public boolean multiLockable() {
		return false;
	}

	/**
	 * Return whether an attempt held back by readers sets a writer intent, which the
	 * writer drops when it takes the lock or stops waiting ({@code drop-intent.lua}).
	 */
	public boolean setsWriterIntent() {
		return false;
	}

	/**
	 * Return whether its waiters are readers, whom the {@code readers-left} message does
	 * not wake: only a writer waits for the last reader to leave.
	 */
	public boolean waitsAsReader() {
		return false;
	}

	/**
	 * What one acquire attempt carries besides the lock.
	 *
	 * @param owner the owner
	 * @param hold the id of the hold this acquisition takes, the same for each of its
	 * attempts, so that an attempt whose reply was lost is found, not counted again
	 * @param remainingWaitMillis how long the caller will keep waiting (-1 indefinitely),
	 * so that a writer announces itself to readers only for that long
	 * @param mayHaveIntent whether an earlier attempt was held back by readers, and so
	 * may have left a writer intent to clean up
	 * @param holdsIt whether the caller already holds the lock, so that finding it ours
	 * is a re-entry rather than a hold left by a lost reply
	 * @param handOff the caller's request, which keeps its place in the lock's line, or
	 * {@code null} for none
	 */
	public record Attempt(String owner, String hold, long remainingWaitMillis, boolean mayHaveIntent, boolean holdsIt,
			@Nullable HandOffRequest handOff) {

		String requestMember() {
			return (this.handOff != null) ? this.handOff.member() : "";
		}

	}

}
