package io.github.distributedlock.redis.core;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.script.LockKind;

/**
 * What a resolved request names: the lock, its keys and channel, and what a hold of it is
 * in Redis. Part of a {@link LockSpec}.
 *
 * @param permits the number of permits of a semaphore, 0 for locks
 * @param queueId the id of the local wait queue: the wait channel, qualified by kind
 */
public record LockTarget(LockName name, String lockKey, String releaseChannel, LockKind kind, int permits,
		String queueId) {

}
