package io.github.distributedlock.redis;

import org.jspecify.annotations.Nullable;

/**
 * The multi-lock calls of a run that takes its locks one by one ({@link InOrderClient}):
 * the command timeout their clients are configured with, the bound each call is held to,
 * and what came of them, for the report.
 * <p>
 * The bound is the engine's: a call ends within its wait time plus one command timeout
 * ({@code InOrderAcquisition}), told to its caller at the latest then
 * ({@code SettledRun}, whose settle time is that command timeout and whose call bound is
 * that same instant), whether it is granted, gives up, runs out of its bound, is
 * cancelled or gets no reply in time.
 */
final class InOrderCalls {

	private final long commandTimeoutNanos;

	private final int[] ended = new int[Outcome.values().length];

	private int started;

	// The calls that took their locks again from the first, and how many times in all.
	private int startedOver;

	private int restarts;

	private long longestNanos;

	private String longest = "no call taken in order ended";

	// The least time any call had left of its bound when it was told its end.
	private long leastLeftNanos = Long.MAX_VALUE;

	/**
	 * @param commandTimeoutNanos the command timeout the clients are configured with
	 */
	InOrderCalls(long commandTimeoutNanos) {
		this.commandTimeoutNanos = commandTimeoutNanos;
	}

	long commandTimeoutNanos() {
		return this.commandTimeoutNanos;
	}

	/**
	 * Return the bound of a call with the given wait time, from its start: the wait time
	 * plus one command timeout.
	 */
	long boundNanos(long waitNanos) {
		return waitNanos + this.commandTimeoutNanos;
	}

	void started() {
		this.started++;
	}

	/**
	 * Record that a call takes its locks again from the first, a lock it took being no
	 * longer live.
	 * @param first whether it is the call's first time
	 */
	void restarted(boolean first) {
		this.restarts++;
		this.startedOver += first ? 1 : 0;
	}

	/**
	 * Return how many calls took their locks again from the first, and how many times in
	 * all.
	 */
	int[] restarts() {
		return new int[] { this.startedOver, this.restarts };
	}

	/**
	 * Record a call told its end at {@code nowNanos}.
	 * @return what it breaks, or {@code null}: told its end past its bound
	 */
	@Nullable String ended(String who, Outcome outcome, long startedNanos, long waitNanos, long nowNanos) {
		this.ended[outcome.ordinal()]++;
		long took = nowNanos - startedNanos;
		long bound = boundNanos(waitNanos);
		String what = String.format(
				"%s's call taken in order %s after %.3f ms, from %.3f ms to %.3f ms (bound %.3f ms)", who,
				outcome.toString().toLowerCase(java.util.Locale.ROOT).replace('_', ' '), took / 1e6,
				MultiLockRun.at(startedNanos), MultiLockRun.at(nowNanos), bound / 1e6);
		if (took > this.longestNanos) {
			this.longestNanos = took;
			this.longest = what;
		}
		this.leastLeftNanos = Math.min(this.leastLeftNanos, bound - took);
		return (took > bound) ? what + ": past its wait time plus one command timeout" : null;
	}

	/**
	 * Return how many calls started, then how many ended each way, in the order of
	 * {@link Outcome}.
	 */
	int[] counts() {
		int[] counts = new int[1 + this.ended.length];
		counts[0] = this.started;
		System.arraycopy(this.ended, 0, counts, 1, this.ended.length);
		return counts;
	}

	long longestNanos() {
		return this.longestNanos;
	}

	String longest() {
		return this.longest;
	}

	/**
	 * Return the least time a call had left of its bound when told its end, or
	 * {@link Long#MAX_VALUE} if none ended.
	 */
	long leastLeftNanos() {
		return this.leastLeftNanos;
	}

	/**
	 * How a call ended.
	 */
	enum Outcome {

		/** Every lock taken. */
		GRANTED,

		/** Its wait time ran out ({@code LockTimeoutException}). */
		TIMED_OUT,

		/** Its bound came with an attempt in flight (a slow Redis). */
		TOO_SLOW,

		/** Its caller cancelled it. */
		CANCELLED,

		/** A command got no reply within the command timeout. */
		NO_REPLY

	}

}
