package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.redis.driver.HoldView;
import io.github.distributedlock.redis.driver.LockHold;

/**
 * A reactive hold as a {@link LockContext}, for the {@link LockListener}s that the
 * blocking and reactive engines share.
 * <p>
 * Listeners are called on Reactor's threads, where nothing may block, so
 * {@link #isHeld()} answers from what this process knows (neither released nor lost, and
 * the lease not over) without asking Redis.
 */
final class ReactiveHoldContext extends HoldView implements LockContext {

	private final ReactiveRedisLockHandle hold;

	ReactiveHoldContext(ReactiveRedisLockHandle hold) {
		this.hold = hold;
	}

	@Override
	protected List<LockHold> holds() {
		return this.hold.holds();
	}

	@Override
	public boolean isHeld() {
		return remainingLease().compareTo(Duration.ZERO) > 0;
	}

	@Override
	public String toString() {
		return this.hold.toString();
	}

}
