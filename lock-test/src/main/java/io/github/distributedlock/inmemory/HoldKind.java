package io.github.distributedlock.inmemory;

/**
 * What a hold is on: the lock itself (its write lock), its read lock, or a permit of the
 * semaphore of the same name.
 */
enum HoldKind {

	EXCLUSIVE, READ, PERMIT

}
