package io.github.distributedlock.benchmark.report;

import java.util.Arrays;

/**
 * Percentiles of a set of durations, in microseconds.
 *
 * @param count how many durations
 * @param p50Micros the median
 * @param p99Micros the 99th percentile
 * @param maxMicros the largest
 */
public record LatencyStats(long count, double p50Micros, double p99Micros, double maxMicros) {

	/**
	 * No durations at all.
	 */
	public static final LatencyStats NONE = new LatencyStats(0, Double.NaN, Double.NaN, Double.NaN);

	/**
	 * Summarize durations given in nanoseconds.
	 * @param nanos the durations; sorted in place
	 * @return the summary, {@link #NONE} when empty
	 */
	public static LatencyStats ofNanos(long[] nanos) {
		if (nanos.length == 0) {
			return NONE;
		}
		Arrays.sort(nanos);
		return new LatencyStats(nanos.length, micros(percentile(nanos, 0.50)), micros(percentile(nanos, 0.99)),
				micros(nanos[nanos.length - 1]));
	}

	private static long percentile(long[] sorted, double quantile) {
		int rank = (int) Math.ceil(quantile * sorted.length);
		return sorted[Math.max(0, rank - 1)];
	}

	private static double micros(long nanos) {
		return nanos / 1000.0;
	}

}
