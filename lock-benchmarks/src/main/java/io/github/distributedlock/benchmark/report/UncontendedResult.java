package io.github.distributedlock.benchmark.report;

import io.github.distributedlock.benchmark.Library;

/**
 * Scenario 1: one thread of one process acquires and releases a new key each time.
 *
 * @param library the library
 * @param acquireRelease latency of acquire plus release
 * @param acquire latency of the acquire call alone
 * @param opsPerSecond acquire+release pairs per second
 * @param commands Redis commands per acquire+release
 * @param cost what Redis spent per acquire+release and kept per name; memory per held
 * lock from holding many at once
 * @param clientCpuMicros CPU time the worker process spent per acquire+release, without
 * the JIT compiler threads
 * @param jitCpuMicros CPU time the JIT compiler threads of the worker processes used per
 * acquisition
 * @param timeouts acquisitions that timed out (expected none)
 * @param errors calls that threw
 */
public record UncontendedResult(Library library, LatencyStats acquireRelease, LatencyStats acquire, double opsPerSecond,
		CommandCounts commands, RedisCost cost, double clientCpuMicros, double jitCpuMicros, long timeouts,
		long errors) {

}
