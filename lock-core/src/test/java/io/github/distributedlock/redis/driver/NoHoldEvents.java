package io.github.distributedlock.redis.driver;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;

/**
 * Hold events that nobody listens to, for tests that drive a {@link LockHold} without a
 * handle; a test overrides what it records.
 */
public class NoHoldEvents implements LockHold.Events {

	@Override
	public void released(LockHold hold, long result) {
	}

	@Override
	public void releaseFailed(LockHold hold, LockAccessException failure) {
	}

	@Override
	public void releasedAfter(LockHold hold, Duration heldFor) {
	}

	@Override
	public void lost(LockHold hold, boolean goneFromRedis) {
	}

}
