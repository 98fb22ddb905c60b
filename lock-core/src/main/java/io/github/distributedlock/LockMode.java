package io.github.distributedlock;

/**
 * Whether a lock is taken alone or shared with readers.
 * <p>
 * One name is one lock: its exclusive hold is its write lock. Readers share it with each
 * other and exclude writers; a writer excludes everyone. A waiting writer stops new
 * readers from joining until it has had its turn, so a stream of readers can't starve it
 * (if the writer gives up or dies, readers resume within the readers' lease plus 2 s).
 * The writer may also take the read lock; a reader may not upgrade to the write lock,
 * which fails at once with {@link LockSelfDeadlockException}.
 */
public enum LockMode {

	/**
	 * Alone: the default. The same as {@link #WRITE}.
	 */
	EXCLUSIVE,

	/**
	 * Shared with other readers; excluded by a writer.
	 */
	READ,

	/**
	 * Alone, excluding readers and other writers. The same as {@link #EXCLUSIVE}.
	 */
	WRITE

}
