package io.github.distributedlock.redis.core;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids unique across processes: random per JVM, plus a counter. They name holds and
 * waiters' requests, and carry no owner, so writing or publishing them reveals nothing.
 */
public final class UniqueIds {

	private static volatile String processId = newProcessId();

	private static final AtomicLong counter = new AtomicLong();

	private UniqueIds() {
	}

	/** Return a new id, {@code <process>.<counter>}. */
	static String next() {
		return processId + "." + Long.toHexString(counter.incrementAndGet());
	}

	/**
	 * Start the ids again from the given process id, for the deterministic simulation,
	 * whose runs must depend neither on a random process id (it sorts requests filed in
	 * the same millisecond) nor on earlier runs. The engine never calls it: processes
	 * with one process id would share hold ids.
	 * @param newProcessId 16 hex digits, as a random process id has
	 */
	static void restart(String newProcessId) {
		processId = newProcessId;
		counter.set(0);
	}

	private static String newProcessId() {
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		return HexFormat.of().formatHex(id);
	}

}
