package io.github.distributedlock.benchmark.worker;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting for a start time and holding a lock for a set time.
 */
final class Pacing {

	private static final long SPIN_NANOS = 200_000;

	private Pacing() {
	}

	/**
	 * Sleep until shortly before the given {@link System#nanoTime()}, then spin, so that
	 * all workers start within microseconds of each other.
	 */
	static void awaitNanoTime(long start) {
		long left;
		while ((left = start - System.nanoTime()) > SPIN_NANOS) {
			LockSupport.parkNanos(left - SPIN_NANOS);
		}
		busyWait(start);
	}

	/**
	 * Hold the CPU until the given time: a critical section of about 100 µs is shorter
	 * than the scheduler's sleep granularity, so sleeping would hold the lock far longer
	 * than asked.
	 */
	static void busyWait(long until) {
		while (System.nanoTime() - until < 0) {
			Thread.onSpinWait();
		}
	}

}
