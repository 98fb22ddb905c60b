package io.github.distributedlock.redis.core;

import org.jspecify.annotations.Nullable;

/**
 * What to undo once an acquisition ends.
 *
 * @param forget the request to stop listening for, or {@code null}
 * @param withdraw whether to withdraw that request from the lock's line in Redis (which
 * passes a reservation for it on): an attempt filed it, and the lock was not won
 * @param dropIntent whether to drop the writer intent an attempt may have left
 */
public record WaitEnding(@Nullable HandOffRequest forget, boolean withdraw, boolean dropIntent) {

}
