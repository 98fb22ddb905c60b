package io.github.distributedlock.redis;

/**
 * What one run of the acquire script said.
 *
 * @param status 1 acquired, 0 held by another owner, -1 held by this owner (not reentrant)
 * @param token our fencing token when acquired, otherwise the holder's
 * @param holderTtlMillis the holder's remaining lease when not acquired; negative when the
 * lock has no expiry
 */
record AcquireResult(int status, long token, long holderTtlMillis) {

	boolean acquired() {
		return this.status == 1;
	}

	boolean selfDeadlock() {
		return this.status == -1;
	}

}
