package io.github.distributedlock.redis.core;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids unique across processes: random per JVM, plus a counter. They name holds and
 * waiters' requests, and carry no owner, so writing or publishing them reveals nothing.
 */
public final class UniqueIds {

	private static final String PROCESS_ID = newProcessId();

	private static final AtomicLong counter = new AtomicLong();

	private UniqueIds() {
	}

	/**
	 * Return a new id, {@code <process>.<counter>}.
	 */
	static String next() {
		return PROCESS_ID + "." + Long.toHexString(counter.incrementAndGet());
	}

	private static String newProcessId() {
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		return HexFormat.of().formatHex(id);
	}

}
