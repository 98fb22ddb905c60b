package io.github.distributedlock.chaos;

import java.util.concurrent.TimeUnit;

/**
 * One successful acquisition as the history shows it: from the moment the acquire was
 * invoked to the moment its holder invoked the release (or died).
 *
 * @param holdId the attempt's id
 * @param worker the worker that held the lock
 * @param key the lock key
 * @param token the fencing token
 * @param invokeNanos when the acquire was invoked: Redis granted the lock after this
 * @param okNanos when the acquire returned: Redis granted the lock before this
 * @param leaseNanos the lease the acquire asked for
 * @param endNanos when the holder stopped believing it held the lock: the release was
 * invoked, or the worker died; {@link Long#MAX_VALUE} if neither happened
 * @param release the release's outcome ({@code ok}, {@code fail} or {@code info}), or
 * {@code null} if none was seen
 * @param owner the custom owner the acquisition named, shared across workers, or
 * {@code null} for the calling thread
 * @param renewed whether the watchdog renewed the lease: then only Redis knows when it
 * ended (see {@link RedisMonitor})
 */
record Hold(String holdId, String worker, String key, long token, long invokeNanos, long okNanos, long leaseNanos,
		long endNanos, @org.jspecify.annotations.Nullable String release,
		@org.jspecify.annotations.Nullable String owner, boolean renewed) {

	/**
	 * Return the latest moment the lease can end: Redis set it when it granted the lock,
	 * before {@link #okNanos}. Not for {@link #renewed} holds, whose leases the watchdog
	 * moved later; nor for a custom owner's holds on their own, whose re-entries may have
	 * moved it later.
	 */
	long latestLeaseEndNanos() {
		return this.okNanos + this.leaseNanos;
	}

	/**
	 * Return the earliest moment the lease can end.
	 */
	long earliestLeaseEndNanos() {
		return this.invokeNanos + this.leaseNanos;
	}

	/**
	 * Return who holds the lock as far as mutual exclusion goes: a custom owner is one
	 * holder in every process that names it; otherwise every hold is its own.
	 */
	String logicalOwner() {
		return (this.owner != null) ? "owner " + this.owner : "hold " + this.holdId;
	}

	boolean covers(long nanos) {
		return this.okNanos <= nanos && nanos < this.endNanos;
	}

	@Override
	public String toString() {
		return this.holdId + "[" + this.key + " token " + this.token + ", held " + millis(this.okNanos) + ".."
				+ ((this.endNanos == Long.MAX_VALUE) ? "?" : millis(this.endNanos)) + " ms, lease "
				+ TimeUnit.NANOSECONDS.toMillis(this.leaseNanos) + " ms" + (this.renewed ? " renewed" : "")
				+ ((this.owner != null) ? ", owner " + this.owner : "") + ", release " + this.release + "]";
	}

	private static String millis(long nanos) {
		return String.format("%.1f", nanos / 1e6);
	}

}
