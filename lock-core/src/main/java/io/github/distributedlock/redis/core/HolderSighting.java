package io.github.distributedlock.redis.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The holder's remaining lease as a reply reported it, and when: what a waiter that made
 * no attempt of its own (it timed out behind its line's head) can still tell the caller.
 *
 * @param seenNanos when the reply came, on the acquisition's {@link NanoClock}
 */
record HolderSighting(long ttlMillis, long seenNanos) {

	/** Return a sighting, or {@code null} for a reply that reported no lease. */
	static @Nullable HolderSighting of(long ttlMillis, long seenNanos) {
		return (ttlMillis < 0) ? null : new HolderSighting(ttlMillis, seenNanos);
	}

	Duration remaining(long nowNanos) {
		long left = TimeUnit.MILLISECONDS.toNanos(this.ttlMillis) - (nowNanos - this.seenNanos);
		return Duration.ofNanos(Math.max(0, left));
	}

	static @Nullable HolderSighting latest(@Nullable HolderSighting one, @Nullable HolderSighting other) {
		if (one == null) {
			return other;
		}
		return (other == null || one.seenNanos - other.seenNanos >= 0) ? one : other;
	}

}
