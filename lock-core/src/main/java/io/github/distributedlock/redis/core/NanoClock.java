package io.github.distributedlock.redis.core;

/**
 * The monotonic clock the engine's decisions read, in nanoseconds: {@link #SYSTEM} in the
 * engine, a virtual clock in the simulation and in unit tests of those decisions.
 */
@FunctionalInterface
public interface NanoClock {

	/** {@link System#nanoTime()}. */
	NanoClock SYSTEM = System::nanoTime;

	/** Return the current reading, comparable only with other readings of this clock. */
	long nanoTime();

}
