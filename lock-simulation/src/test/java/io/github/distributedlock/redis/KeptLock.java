package io.github.distributedlock.redis;

import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.simulation.RedisModel;
import org.jspecify.annotations.Nullable;

/**
 * A lock released before its minimum hold ended: taken by nobody else until
 * {@code endNanos}.
 */
final class KeptLock {

	final String holder;

	final String owner;

	final long token;

	// The released hold's id: until its release runs, the keep is that hold itself.
	final String hold;

	// The end the engine promises: acquired (the grant's reply read) + minimum hold,
	// capped by the hold's deadline.
	final long endNanos;

	// What the release passed on, and the hold's deadline then, which caps it.
	final long keepMillis;

	final long deadlineNanos;

	// When the release ran (its first run), or -1 before.
	long ranNanos = -1;

	// The release's reply was read: Redis has kept it since.
	boolean read;

	// When Redis's keep ends, read off the lock's TTL when the release ran, or -1 if
	// unknown. A hold's lease counts in Redis from when its attempt ran, after the
	// holder's t0, and a keep is capped by that lease, not by the deadline.
	long redisEndNanos = -1;

	// A fault lost the kept state in Redis (LostState): nothing is promised of it since.
	boolean lost;

	KeptLock(String holder, String owner, long token, String hold, long endNanos, long keepMillis, long deadlineNanos) {
		this.holder = holder;
		this.owner = owner;
		this.token = token;
		this.hold = hold;
		this.endNanos = endNanos;
		this.keepMillis = keepMillis;
		this.deadlineNanos = deadlineNanos;
	}

	/**
	 * Return whether a grant whose script ran at {@code ranNanos} comes before the lock's
	 * minimum hold ends: before the end the engine promises (with Redis's millisecond of
	 * slack), or, once the release ran at the server's millisecond T, by T + keep at the
	 * latest (a key lives through the millisecond it expires at), unless the hold's
	 * deadline, which caps it, was over by then.
	 */
	boolean grantedWithin(long ranNanos) {
		if (this.lost) {
			return false;
		}
		if (this.ranNanos < 0 || ranNanos - this.ranNanos < 0) {
			// The grant ran before the release did (or the release has not run yet, and
			// the grant, whose reply is read now, ran already): not a question of the
			// keep, but of exclusion with the hold itself, which HoldChecker answers
			// (seed 4451: a writer's grant lost by an eviction, its reply read during a
			// reader's keep; seed 90661: a reader's grant lost by an eviction, its reply
			// read after the writer that took the lock next had sent, but not yet run, a
			// release that keeps it).
			return false;
		}
		if (this.endNanos - LockSimulation.REDIS_MS_SLACK - ranNanos > 0) {
			return true;
		}
		return this.ranNanos >= 0 && ranNanos / LockSimulation.MS <= this.ranNanos / LockSimulation.MS + this.keepMillis
				&& this.deadlineNanos - LockSimulation.REDIS_MS_SLACK - ranNanos > 0;
	}

	/**
	 * Return the end of both: no grant may come before.
	 */
	long lastNanos() {
		return Math.max(this.endNanos, (this.ranNanos < 0) ? Long.MAX_VALUE : Math.min(this.deadlineNanos,
				(this.ranNanos / LockSimulation.MS + this.keepMillis + 1) * LockSimulation.MS));
	}

	/**
	 * Return the end of the time waiters spend behind this keep: {@link #lastNanos}, or
	 * the end Redis set, if later.
	 */
	long waitedUntilNanos() {
		return Math.max(lastNanos(), this.redisEndNanos);
	}

	/**
	 * Return why a grant of {@code grantedToken} whose acquire script ran at
	 * {@code ranNanos} breaks this keep, or {@code null}: nobody may be granted the lock
	 * before its minimum hold ends, but a hold of the same token (a client of the same
	 * custom owner joining a hold still live in Redis).
	 */
	@Nullable String grantViolation(String grantee, long grantedToken, long ranNanos) {
		if (grantedToken == this.token || !grantedWithin(ranNanos)) {
			return null;
		}
		return grantee + " was granted token " + grantedToken + " at " + LockSimulation.at(ranNanos) + " ms, but "
				+ this.holder + " released token " + this.token + " keeping the lock until "
				+ LockSimulation.at(this.endNanos) + " ms (its minimum hold)";
	}

	/**
	 * Return what is wrong in Redis with the lock {@code key}, kept by this release, at
	 * {@code nowNanos}, or {@code null}: once the release's reply is read, and until the
	 * end the engine promises, the lock is there, owned by nobody (or still by its own
	 * owner, if another client of that owner holds it), with a TTL that reaches the end.
	 */
	@Nullable String liveViolation(RedisModel redis, String key, long nowNanos) {
		if (!this.read || this.endNanos - LockSimulation.REDIS_MS_SLACK - nowNanos <= 0) {
			return null;
		}
		Object held = redis.inspect("HGET", key, "owner");
		if (!"".equals(held) && !LockOwners.digest(this.owner).equals(held)) {
			return this.holder + " released token " + this.token + " keeping the lock until "
					+ LockSimulation.at(this.endNanos) + " ms (its minimum hold), but the lock's owner in Redis is "
					+ held;
		}
		long ttl = (Long) redis.inspect("PTTL", key);
		if (nowNanos + ttl * LockSimulation.MS + LockSimulation.REDIS_MS_SLACK - this.endNanos < 0) {
			return this.holder + " released token " + this.token + " keeping the lock until "
					+ LockSimulation.at(this.endNanos) + " ms (its minimum hold), but Redis keeps it " + ttl + " ms";
		}
		return null;
	}

}
