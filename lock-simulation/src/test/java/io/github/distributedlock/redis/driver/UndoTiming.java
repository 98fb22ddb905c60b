package io.github.distributedlock.redis.driver;

/**
 * The driver's timing of an undo, for the simulation's oracle of orphaned holds: read
 * from the engine, so that the oracle's bound follows it.
 */
public final class UndoTiming {

	private UndoTiming() {
	}

	/**
	 * Return how soon the driver tries the undo of an attempt without a reply again
	 * ({@code DriverCommands.UNDO_RETRY_NANOS}).
	 */
	public static long retryNanos() {
		return DriverCommands.UNDO_RETRY_NANOS;
	}

}
