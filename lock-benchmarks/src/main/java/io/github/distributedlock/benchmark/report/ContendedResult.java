package io.github.distributedlock.benchmark.report;

import io.github.distributedlock.benchmark.Library;

/**
 * Scenario 2: threads in several processes hammer one key, holding it about 100 µs.
 *
 * @param library the library
 * @param shape how many processes, with how many threads each
 * @param acquisitions acquisitions in the measured window
 * @param acquisitionsPerSecond acquisitions per second
 * @param acquireWait time from the acquire call to its return, for every acquisition: how
 * long a process waited
 * @param handoffGap time from one holder's release call to the next holder's acquire
 * returning, for acquisitions that changed hands (another thread, of this process or of
 * another)
 * @param handoffShare the share of acquisitions that went to another thread than the
 * previous one
 * @param localShare the share of successions whose next holder ran in the same process as
 * the previous one (the same thread included); 1 with a single process
 * @param remoteWait acquire waits of the acquisitions that took the key from a holder in
 * another process, {@link LatencyStats#NONE} with a single process: its max is how long a
 * waiter in one process could be kept waiting while the key stayed elsewhere
 * @param overlaps acquisitions that began before the previous hold ended (must be 0)
 * @param commands Redis commands per acquisition
 * @param cost what Redis spent per acquisition and kept for the key
 * @param clientCpuMicros CPU time the worker processes spent per acquisition, without the
 * holds and without the JIT compiler threads
 * @param jitCpuMicros CPU time the JIT compiler threads of the worker processes used per
 * acquisition
 * @param timeouts acquisitions that timed out
 * @param errors calls that threw
 */
public record ContendedResult(Library library, ContendedShape shape, long acquisitions, double acquisitionsPerSecond,
		LatencyStats acquireWait, LatencyStats handoffGap, double handoffShare, double localShare,
		LatencyStats remoteWait, long overlaps, CommandCounts commands, RedisCost cost, double clientCpuMicros,
		double jitCpuMicros, long timeouts, long errors) {

}
