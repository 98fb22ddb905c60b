package io.github.distributedlock.benchmark;

import java.time.Duration;

/**
 * Weighs what Redis keeps per held lock: one worker thread holds many new locks at once,
 * and the growth of Redis's data memory is divided by their number. The database is
 * emptied first, so that nothing else grows or shrinks in it meanwhile; what the locks
 * leave behind is emptied by the next measurement.
 */
final class HeldLocks {

	private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(300);

	private static final long LEASE_MILLIS = 300_000;

	private HeldLocks() {
	}

	/**
	 * Hold {@link BenchmarkSettings#heldLocks()} new locks of a library at once and
	 * release them.
	 * @return data memory per held lock, in bytes
	 */
	static double bytesPerLock(BenchmarkRun run, Library library) {
		int locks = run.settings().heldLocks();
		WorkerProcess holder = run.pool(1).get(0);
		String prefix = library.id() + "-held";
		run.redis().flushAll();
		RedisUsage before = run.usage();
		holder.send(String.join(" ", "BLOCK", library.id(), prefix, Integer.toString(locks),
				Long.toString(LEASE_MILLIS), Integer.toString(holder.id())));
		holder.await("BLOCKED", REPLY_TIMEOUT);
		RedisUsage held = run.usage().minus(before);
		holder.send("UNBLOCK " + run.workDirectory().resolve("held-" + library.id() + ".bin"));
		holder.await("UNBLOCKED", REPLY_TIMEOUT);
		return (double) held.dataBytes() / locks;
	}

}
