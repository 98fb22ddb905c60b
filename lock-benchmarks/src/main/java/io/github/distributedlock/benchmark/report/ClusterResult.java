package io.github.distributedlock.benchmark.report;

import io.github.distributedlock.benchmark.Library;

/**
 * Scenario 6: the many-keys load of scenario 3 on a Redis Cluster of one or three
 * masters.
 *
 * @param library the library
 * @param masters the number of masters
 * @param processes the number of client processes
 * @param threadsPerProcess threads in each process
 * @param keys the number of keys, spread over the masters by hash slot
 * @param acquisitionsPerSecond acquisitions per second, all processes together
 * @param acquireRelease latency of acquire plus release, waiting included
 * @param cost what the masters together spent per acquisition and kept per key
 * @param busiestMasterShare the largest share of the measured phase that one master's
 * main thread was on a CPU
 * @param overlaps overlapping holds of one key (must be 0)
 * @param timeouts acquisitions that timed out
 * @param errors calls that threw
 */
public record ClusterResult(Library library, int masters, int processes, int threadsPerProcess, int keys,
		double acquisitionsPerSecond, LatencyStats acquireRelease, RedisCost cost, double busiestMasterShare,
		long overlaps, long timeouts, long errors) {

}
