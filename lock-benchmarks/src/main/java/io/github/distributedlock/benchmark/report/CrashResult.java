package io.github.distributedlock.benchmark.report;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.distributedlock.benchmark.Library;

/**
 * Scenario 4: the holder is killed with SIGKILL; how long after its lease ended did the
 * waiter get the lock.
 *
 * @param library the library
 * @param lease the holder's lease
 * @param waitTime the waiter's wait time
 * @param delaysMillis for each trial, from the end of the lease to the waiter's acquire
 * returning
 * @param timeouts trials in which the waiter gave up
 */
public record CrashResult(Library library, Duration lease, Duration waitTime, List<Double> delaysMillis, int timeouts) {

	/**
	 * Return the median delay.
	 * @return the median in milliseconds, or NaN without trials
	 */
	public double medianMillis() {
		if (this.delaysMillis.isEmpty()) {
			return Double.NaN;
		}
		double[] sorted = this.delaysMillis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
		return sorted[(sorted.length - 1) / 2];
	}

	/**
	 * Return the largest delay.
	 * @return the maximum in milliseconds, or NaN without trials
	 */
	public double maxMillis() {
		return Arrays.stream(this.delaysMillis.stream().mapToDouble(Double::doubleValue).toArray())
			.max()
			.orElse(Double.NaN);
	}

}
