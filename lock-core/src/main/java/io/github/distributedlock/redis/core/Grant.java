package io.github.distributedlock.redis.core;

import java.time.Duration;

/**
 * What an acquisition won: the hold's token, the clock reading its lease counts from, and
 * how the wait went.
 *
 * @param hold the hold's id, which its release, extensions and renewals name
 * @param sentNanos the clock reading taken before the winning attempt was sent
 * @param waited whether the caller waited (several attempts, or behind a local waiter)
 * @param attempts how many times the acquire script ran
 */
public record Grant(LockSpec spec, String owner, long token, String hold, long sentNanos, boolean waited,
		Duration waitedFor, int attempts) {

}
