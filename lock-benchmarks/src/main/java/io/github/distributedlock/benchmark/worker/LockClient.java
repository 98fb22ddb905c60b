package io.github.distributedlock.benchmark.worker;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One lock library behind the same small interface, so that every scenario drives every
 * library the same way.
 * <p>
 * Implementations are thread-safe. A {@link Hold} must be released by the thread that
 * acquired it, because Redisson and Spring Integration tie a lock to its thread.
 */
interface LockClient extends AutoCloseable {

	/**
	 * Acquire a lock, waiting up to the wait time.
	 * @param key the lock key, unique within the library's namespace
	 * @param lease how long the lock stays taken if never released
	 * @param wait how long to wait for a taken lock
	 * @return the hold, or {@code null} if the wait ran out
	 * @throws InterruptedException if interrupted while waiting
	 */
	@Nullable Hold acquire(String key, Duration lease, Duration wait) throws InterruptedException;

	@Override
	void close();

	/**
	 * One hold of a lock.
	 */
	@FunctionalInterface
	interface Hold {

		/**
		 * Release the lock.
		 */
		void release();

	}

}
