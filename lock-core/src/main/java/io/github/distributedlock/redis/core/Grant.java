package io.github.distributedlock.redis.core;

import java.time.Duration;

/**
 * What an acquisition won, as it returns it: the hold's token, the clock reading its
 * lease counts from, and how the wait went.
 *
 * @param spec the lock
 * @param owner the owner
 * @param token the fencing token from the acquire script's reply
 * @param hold the hold's id, which its release, extensions and renewals name
 * @param sentNanos {@link System#nanoTime()} before the attempt that took it was sent
 * @param waited whether the caller waited (more than one attempt, or behind a local
 * waiter)
 * @param waitedFor how long the acquisition took
 * @param attempts how many times the acquire script ran
 */
public record Grant(LockSpec spec, String owner, long token, String hold, long sentNanos, boolean waited,
		Duration waitedFor, int attempts) {

}
