package io.github.distributedlock.benchmark.report;

import io.github.distributedlock.benchmark.Library;

/**
 * Scenario 5: thousands of threads wait on hundreds of keys that a blocker holds, then
 * drain.
 *
 * @param library the library
 * @param jdk the Java version of the waiting processes
 * @param virtualThreads whether the waiters were virtual threads
 * @param processes waiting processes
 * @param waitSeconds each waiter's wait time
 * @param waiters waiting threads, all processes together
 * @param keys awaited keys
 * @param heapPerWaiterBytes live heap added per waiting thread
 * @param rssBytes resident memory of one waiting process while waiting (the largest)
 * @param peakPlatformThreads the most platform threads one waiting process had (the
 * largest)
 * @param redisConnections Redis connections the waiting processes opened
 * @param channels pub/sub channels subscribed while waiting
 * @param subscriptions channel subscriptions (one per channel per connection) while
 * waiting
 * @param patterns pattern subscriptions while waiting
 * @param drainMillis from the blocker's first release to the last waiter's release or
 * giving up
 * @param acquisitions waiters that got their lock
 * @param timeouts waiters that gave up
 * @param errors waiters that failed
 * @param leftLocked the blocker's locks still in Redis right after it released them all
 * (must be 0)
 * @param overlaps overlapping holds of one key (must be 0)
 * @param cost what Redis spent during the drain per acquisition (commands inside Lua
 * included), kept per key after it, and held per held lock while the waiters waited
 */
public record WaitersResult(Library library, String jdk, boolean virtualThreads, int processes, long waitSeconds,
		int waiters, int keys, long heapPerWaiterBytes, long rssBytes, int peakPlatformThreads, long redisConnections,
		long channels, long subscriptions, long patterns, double drainMillis, long acquisitions, long timeouts,
		long errors, long leftLocked, long overlaps, RedisCost cost) {

}
