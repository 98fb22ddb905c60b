package io.github.distributedlock.redis.core;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids unique across processes: a process id, plus a counter. They name holds and waiters'
 * requests, and carry no owner, so writing or publishing them reveals nothing. The
 * engine's ports hand out {@link #ofProcess()}, the simulation's ids of its own per run.
 * Thread-safe.
 */
public final class UniqueIds {

	private static final UniqueIds PROCESS = new UniqueIds(newProcessId());

	private final String processId;

	private final AtomicLong counter = new AtomicLong();

	/**
	 * @param processId 16 hex digits; processes with one process id would share hold ids
	 */
	UniqueIds(String processId) {
		this.processId = processId;
	}

	/** Return the ids of this JVM, whose process id is random. */
	public static UniqueIds ofProcess() {
		return PROCESS;
	}

	/** Return a new id, {@code <process>.<counter>}. */
	String next() {
		return this.processId + "." + Long.toHexString(this.counter.incrementAndGet());
	}

	private static String newProcessId() {
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		return HexFormat.of().formatHex(id);
	}

}
