package io.github.distributedlock.autoconfigure;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.github.distributedlock.redis.core.CohortStatistics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of the cohorts of the lock template, read from its {@link CohortStatistics}:
 * {@code distributed.lock.cohort.openings} and {@code distributed.lock.cohort.passes}
 * count holds taken from Redis that opened a cohort and holds passed in memory, so that
 * {@code passes / (passes + openings)} is the share of the cohorts' holds that changed
 * hands without Redis; {@code distributed.lock.cohort.duration} times the cohorts that
 * passed the lock, from the opening attempt to the release through Redis, and
 * {@code distributed.lock.cohort.duration.longest} is the longest of them. A waiter of
 * another process waits in that process, so this one cannot time it: a cohort's duration
 * is what such a waiter, next in line, waits for that cohort.
 */
final class CohortMetrics implements MeterBinder {

	private final List<CohortStatistics> statistics;

	/**
	 * @param statistics those of each lock template (blocking, reactive), counted
	 * together; none are bound if every template has cohorts off
	 */
	CohortMetrics(List<CohortStatistics> statistics) {
		this.statistics = statistics.stream().filter((each) -> each.limits().isOn()).toList();
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		if (this.statistics.isEmpty()) {
			return;
		}
		FunctionCounter
			.builder("distributed.lock.cohort.openings", this, (metrics) -> metrics.sum(CohortStatistics::openings))
			.description("Holds taken from Redis that opened a cohort: a waiter of this process was behind them")
			.register(registry);
		FunctionCounter
			.builder("distributed.lock.cohort.passes", this, (metrics) -> metrics.sum(CohortStatistics::passes))
			.description("Holds passed in memory to a waiter of this process, without Redis")
			.register(registry);
		FunctionTimer
			.builder("distributed.lock.cohort.duration", this,
					(metrics) -> (long) metrics.sum(CohortStatistics::closings),
					(metrics) -> metrics.sum(CohortStatistics::closedNanos), TimeUnit.NANOSECONDS)
			.description("Time from a cohort's opening attempt to its release through Redis, for cohorts that "
					+ "passed the lock: what a waiter of another process, next in line, waits for the cohort")
			.register(registry);
		TimeGauge
			.builder("distributed.lock.cohort.duration.longest", this, TimeUnit.NANOSECONDS,
					(metrics) -> metrics.statistics.stream().mapToLong(CohortStatistics::longestNanos).max().orElse(0))
			.description("Longest cohort duration since the application started")
			.register(registry);
	}

	private double sum(ToLongFunction<CohortStatistics> count) {
		return this.statistics.stream().mapToLong(count).sum();
	}

}
