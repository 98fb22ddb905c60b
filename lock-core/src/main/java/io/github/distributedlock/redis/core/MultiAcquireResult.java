package io.github.distributedlock.redis.core;

/**
 * What one run of the multi-lock acquire script said.
 *
 * @param status 1 all acquired, 0 a lock is held by another owner, -1 a lock is held by
 * this owner and the request is not reentrant
 * @param index the index of the lock that blocked, when not acquired
 * @param tokens the fencing token of each lock, when acquired
 * @param holderTtlMillis the blocking holder's remaining lease, when not acquired
 */
public record MultiAcquireResult(int status, int index, long[] tokens, long holderTtlMillis) {

	boolean acquired() {
		return this.status == 1;
	}

	boolean selfDeadlock() {
		return this.status == -1;
	}

}
