package io.github.distributedlock.redis.reactive;

import java.time.Duration;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;

/**
 * A reactive hold as a {@link LockContext}, for the {@link LockListener}s that the
 * blocking and reactive engines share.
 * <p>
 * Listeners are called on Reactor's threads, where nothing may block, so
 * {@link #isHeld()} answers from what this process knows (neither released nor lost, and
 * the lease not over) without asking Redis.
 */
final class ReactiveHoldContext implements LockContext {

	private final ReactiveRedisLockHandle hold;

	ReactiveHoldContext(ReactiveRedisLockHandle hold) {
		this.hold = hold;
	}

	@Override
	public LockName name() {
		return this.hold.name();
	}

	@Override
	public long fencingToken() {
		return this.hold.fencingToken();
	}

	@Override
	public boolean waited() {
		return this.hold.waited();
	}

	@Override
	public Duration waitedFor() {
		return this.hold.waitedFor();
	}

	@Override
	public int attempts() {
		return this.hold.attempts();
	}

	@Override
	public Duration remainingLease() {
		return this.hold.remainingLease();
	}

	@Override
	public boolean isHeld() {
		return this.hold.remainingLease().compareTo(Duration.ZERO) > 0;
	}

	@Override
	public String toString() {
		return this.hold.toString();
	}

}
