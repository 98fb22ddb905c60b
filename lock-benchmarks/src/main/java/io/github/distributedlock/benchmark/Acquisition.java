package io.github.distributedlock.benchmark;

/**
 * One acquisition as a worker saw it, with {@link System#nanoTime()} stamps, which are
 * comparable across the processes of one Linux machine (they all read
 * {@code CLOCK_MONOTONIC}).
 *
 * @param holder the worker and thread that held the lock,
 * {@code worker * 100_000 + thread}
 * @param key the index of the lock key, or {@code -1} for a key used only once
 * @param requested just before the acquire call
 * @param acquired just after the acquire call returned
 * @param releasing just before the release call, after the hold
 * @param released just after the release call returned
 */
public record Acquisition(int holder, int key, long requested, long acquired, long releasing, long released) {

	/**
	 * The key index of keys that are used once, which can never overlap.
	 */
	public static final int UNIQUE_KEY = -1;

	static final int THREADS_PER_WORKER = 100_000;

	/**
	 * Return the holder id of a thread of a worker.
	 * @param worker the worker id
	 * @param thread the thread index within the worker
	 * @return the holder id
	 */
	public static int holder(int worker, int thread) {
		return worker * THREADS_PER_WORKER + thread;
	}

	/**
	 * Return the worker that held the lock.
	 * @return the worker id
	 */
	public int worker() {
		return this.holder / THREADS_PER_WORKER;
	}

}
