package io.github.distributedlock.benchmark.report;

import io.github.distributedlock.benchmark.Library;

/**
 * Scenario 3: many threads in several processes take random keys out of many.
 *
 * @param library the library
 * @param processes the number of processes
 * @param threadsPerProcess threads in each process
 * @param keys the number of keys
 * @param acquisitionsPerSecond acquisitions per second, all processes together
 * @param acquireRelease latency of acquire plus release, waiting included
 * @param commands Redis commands per acquisition
 * @param cost what Redis spent per acquisition and kept per key
 * @param clientCpuMicros CPU time the worker processes spent per acquisition, without the
 * JIT compiler threads
 * @param jitCpuMicros CPU time the JIT compiler threads of the worker processes used per
 * acquisition
 * @param overlaps overlapping holds of one key (must be 0)
 * @param timeouts acquisitions that timed out
 * @param errors calls that threw
 */
public record ManyKeysResult(Library library, int processes, int threadsPerProcess, int keys,
		double acquisitionsPerSecond, LatencyStats acquireRelease, CommandCounts commands, RedisCost cost,
		double clientCpuMicros, double jitCpuMicros, long overlaps, long timeouts, long errors) {

}
