package io.github.distributedlock.redis;

/**
 * What a hold is in Redis, which decides the scripts that take, release and renew it.
 */
enum LockKind {

	/**
	 * The lock hash itself: an exclusive (write) hold.
	 */
	EXCLUSIVE,

	/**
	 * A reader in the lock's readers sorted set.
	 */
	READ,

	/**
	 * A permit in the semaphore's permits sorted set.
	 */
	PERMIT

}
