package io.github.distributedlock.redis.script;

import java.util.function.Function;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;

import org.jspecify.annotations.Nullable;

/**
 * A key that the engine's Lua scripts take, named as in their {@code -- KEYS:} headers
 * (in lower case), with how it is built for a lock.
 */
enum ScriptKey {

	/** The lock hash. */
	LOCK(LockSpec::lockKey),

	/** The fencing counter of the lock's hash slot. */
	FENCE((spec) -> LockKeys.fence(spec.lockKey())),

	/** The channel the lock's (or the semaphore's) releases are published on. */
	CHANNEL(LockSpec::releaseChannel),

	/** The lock's readers, a sorted set scored by lease end. */
	READERS((spec) -> LockKeys.readers(spec.lockKey())),

	/** The readers' holds. */
	READ_HOLDS((spec) -> LockKeys.readHolds(spec.lockKey())),

	/** A waiting writer's intent. */
	WRITER_INTENT((spec) -> LockKeys.writerIntent(spec.lockKey())),

	/** The lock's line of waiters' requests. */
	REQUESTS((spec) -> LockKeys.requests(spec.lockKey())),

	/** A fair lock's queue of waiters. */
	QUEUE((spec) -> LockKeys.fairQueue(spec.lockKey())),

	/** A fair lock's waiter heartbeats. */
	QUEUE_HEARTBEATS((spec) -> LockKeys.fairQueueHeartbeats(spec.lockKey())),

	/** A semaphore's permits, a sorted set scored by lease end. */
	PERMITS((spec) -> LockKeys.permits(spec.lockKey())),

	/** The readers or the permits, by kind: the caller passes it. */
	MEMBERS(null);

	private final @Nullable Function<LockSpec, String> builder;

	ScriptKey(@Nullable Function<LockSpec, String> builder) {
		this.builder = builder;
	}

	/**
	 * Return this key of a lock.
	 * @throws IllegalStateException if the caller must pass this key itself
	 */
	String of(LockSpec spec) {
		if (this.builder == null) {
			throw new IllegalStateException("Key '" + this + "' is not a key of a lock; pass it explicitly");
		}
		return this.builder.apply(spec);
	}

	@Override
	public String toString() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
