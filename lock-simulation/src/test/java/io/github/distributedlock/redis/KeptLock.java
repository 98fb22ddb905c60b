package io.github.distributedlock.redis;

/**
 * A lock released before its minimum hold ended: taken by nobody else until
 * {@code endNanos}.
 */
final class KeptLock {

	final String holder;

	final String owner;

	final long token;

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

	KeptLock(String holder, String owner, long token, long endNanos, long keepMillis, long deadlineNanos) {
		this.holder = holder;
		this.owner = owner;
		this.token = token;
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

}
