package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.HoldView;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.LockPort;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A hold taken by the reactive template: the driver's {@link LockHold}, whose extension
 * and release run on the template's port when subscribed to. The listeners hear of a
 * normal release, and once of a loss, whoever found it.
 */
final class ReactiveRedisLockHandle extends HoldView implements ReactiveLockHandle {

	static final String SUBSCRIPTION = "reactive subscription";

	private final LockHold hold;

	private final LockPort port;

	private final ReactiveLockCommands commands;

	private final ReactiveHolds holds;

	private final LockListener listener;

	private final LockContext context = new Context();

	private final Instant since = Instant.now();

	private final Sinks.Empty<Void> lostSignal = Sinks.empty();

	/**
	 * @param holds told once the hold is released or lost
	 */
	ReactiveRedisLockHandle(Grant grant, LockPort port, ReactiveLockCommands commands, ReactiveHolds holds,
			LockListener listener, boolean handOff) {
		this.port = port;
		this.commands = commands;
		this.holds = holds;
		this.listener = listener;
		this.hold = new LockHold(grant, System.nanoTime(), handOff, new Reports());
	}

	LockHold hold() {
		return this.hold;
	}

	@Override
	protected List<LockHold> holds() {
		return List.of(this.hold);
	}

	@Override
	public Mono<Void> whenLost() {
		return this.lostSignal.asMono();
	}

	/**
	 * Return this hold as the listeners see it.
	 */
	LockContext lockContext() {
		return this.context;
	}

	@Override
	public Mono<Boolean> isHeld() {
		return Mono.defer(() -> (this.hold.isReleased() || this.hold.isLost()) ? Mono.just(false)
				: this.commands.isHeld(this.hold.grant()));
	}

	@Override
	public Mono<Void> extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		return Mono.fromCallable(() -> leaseMillis(lease))
			.flatMap((leaseMillis) -> Mono.<Long>create(
					(sink) -> this.hold.extend(this.port, leaseMillis, Completion.of(sink::success, sink::error))))
			.then();
	}

	@Override
	public Mono<Void> release() {
		return Mono.<Long>create((sink) -> this.hold.release(this.port, Completion.of(sink::success, sink::error)))
			.then();
	}

	/**
	 * Return a snapshot for operators, whose thread is {@value #SUBSCRIPTION}: no thread
	 * owns the hold, and its owner id carries the instance's secret.
	 */
	HeldLock snapshot() {
		return new HeldLock(name(), SUBSCRIPTION, this.since, remainingLease(), fencingToken(),
				this.hold.spec().origin());
	}

	@Override
	public String toString() {
		return "ReactiveLockHandle[" + name() + ", token=" + fencingToken() + "]";
	}

	/**
	 * This hold as the {@link LockListener}s see it. They are called on Reactor's
	 * threads, where nothing may block, so {@link #isHeld()} answers from what this
	 * process knows, without asking Redis.
	 */
	private final class Context extends HoldView implements LockContext {

		@Override
		protected List<LockHold> holds() {
			return ReactiveRedisLockHandle.this.holds();
		}

		@Override
		public boolean isHeld() {
			return remainingLease().compareTo(Duration.ZERO) > 0;
		}

		@Override
		public String toString() {
			return ReactiveRedisLockHandle.this.toString();
		}

	}

	private final class Reports implements LockHold.Events {

		@Override
		public void released(LockHold hold, long result) {
			ReactiveRedisLockHandle.this.holds.ended(ReactiveRedisLockHandle.this);
		}

		@Override
		public void releaseFailed(LockHold hold, LockAccessException failure) {
			ReactiveRedisLockHandle.this.listener.releaseFailed(ReactiveRedisLockHandle.this.context, failure);
		}

		@Override
		public void releasedAfter(LockHold hold, Duration heldFor) {
			ReactiveRedisLockHandle.this.listener.released(ReactiveRedisLockHandle.this.context, heldFor);
		}

		@Override
		public void lost(LockHold hold, boolean goneFromRedis) {
			ReactiveRedisLockHandle.this.holds.ended(ReactiveRedisLockHandle.this);
			ReactiveRedisLockHandle.this.listener.leaseLost(ReactiveRedisLockHandle.this.context);
			ReactiveRedisLockHandle.this.lostSignal.tryEmitEmpty();
		}

	}

}
