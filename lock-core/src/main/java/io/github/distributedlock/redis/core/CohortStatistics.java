package io.github.distributedlock.redis.core;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the cohorts of one template did since it started (docs/design/cohorting.md), for
 * meters and the actuator endpoint: cohorts opened, holds passed in memory, and how long
 * the cohorts that passed a hold kept the lock from the other processes. The counts only
 * grow. Thread-safe.
 */
public final class CohortStatistics {

	private final CohortLimits limits;

	private final LongAdder openings = new LongAdder();

	private final LongAdder passes = new LongAdder();

	private final LongAdder closings = new LongAdder();

	private final LongAdder closedNanos = new LongAdder();

	private final AtomicLong longestNanos = new AtomicLong();

	/**
	 * @param limits the limits the template's cohorts open under
	 */
	public CohortStatistics(CohortLimits limits) {
		this.limits = limits;
	}

	/**
	 * Return the limits the cohorts open under: {@link CohortLimits#OFF} if none does.
	 */
	public CohortLimits limits() {
		return this.limits;
	}

	/**
	 * Return how many cohorts opened that could pass: holds taken from Redis with a block
	 * of tokens, each by a caller with a waiter of this template behind it.
	 */
	public long openings() {
		return this.openings.sum();
	}

	/** Return how many holds passed in memory: the lock changed hands without Redis. */
	public long passes() {
		return this.passes.sum();
	}

	/**
	 * Return how many cohorts that passed a hold were closed: their last holder released
	 * through Redis, answered or not.
	 */
	public long closings() {
		return this.closings.sum();
	}

	/** Return the total time of the closed cohorts, in nanoseconds. */
	public long closedNanos() {
		return this.closedNanos.sum();
	}

	/**
	 * Return the longest time of a closed cohort, in nanoseconds: from when its opening
	 * attempt was sent to when the release of its last holder was answered. A waiter of
	 * another process that was next in line waited about that long for the cohort.
	 */
	public long longestNanos() {
		return this.longestNanos.get();
	}

	/** A cohort opened that may pass. */
	public void opened() {
		this.openings.increment();
	}

	/** A hold passed in memory. */
	public void passed() {
		this.passes.increment();
	}

	/**
	 * A cohort's last holder released through Redis.
	 * @param cohort the cohort; counted only if it passed a hold
	 * @param nowNanos when the release was answered or failed, by the clock the cohort's
	 * opening was timed with
	 */
	public void closed(Cohort cohort, long nowNanos) {
		if (cohort.holders() < 2) {
			return;
		}
		long nanos = Math.max(0, nowNanos - cohort.openedNanos());
		this.closings.increment();
		this.closedNanos.add(nanos);
		this.longestNanos.accumulateAndGet(nanos, Math::max);
	}

}
