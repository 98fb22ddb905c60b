package io.github.distributedlock.redis.core;

/**
 * What one run of the acquire script said.
 *
 * @param status 1 acquired, 0 held by another owner, -1 held by this owner, not reentrant
 * @param token our fencing token when acquired, otherwise the holder's
 * @param holderTtlMillis the holder's remaining lease when not acquired; negative when
 * the lock has no expiry (or, for a fair lock, is free but it's not our turn)
 * @param rank our place in a fair lock's queue, from 0; -1 when not queued
 * @param block when acquired, how many tokens the hold got, from {@code token} up (1
 * unless its attempt asked for a block: docs/design/cohorting.md, rule 2)
 */
public record AcquireResult(int status, long token, long holderTtlMillis, int rank, int block) {

	/** A reply that grants one token, or none. */
	public AcquireResult(int status, long token, long holderTtlMillis, int rank) {
		this(status, token, holderTtlMillis, rank, 1);
	}

	public boolean acquired() {
		return this.status == 1;
	}

	boolean selfDeadlock() {
		return this.status == -1;
	}

}
