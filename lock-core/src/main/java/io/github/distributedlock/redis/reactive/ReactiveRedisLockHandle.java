package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.HoldView;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.RegisteredHold;
import io.github.distributedlock.redis.server.ReactiveLockCommands;
import reactor.core.publisher.Mono;

/**
 * A hold taken by the reactive template: the driver's {@link LockHold}, registered in the
 * template's {@link HoldRegistry}, whose extension and release run on the template's port
 * when subscribed to. The listeners hear of a normal release, and once of a loss, whoever
 * found it.
 */
final class ReactiveRedisLockHandle extends RegisteredHold implements ReactiveLockHandle {

	/** The thread operators see for a reactive hold: no thread owns it. */
	static final String SUBSCRIPTION = "reactive subscription";

	private final LockPort port;

	private final ReactiveLockCommands commands;

	private final LockContext context = new Context();

	ReactiveRedisLockHandle(HoldRegistry registry, Grant grant, LockPort port, ReactiveLockCommands commands) {
		super(registry, grant, SUBSCRIPTION);
		this.port = port;
		this.commands = commands;
	}

	@Override
	public Mono<Void> whenLost() {
		// Not cancelled with a subscriber: others may wait for it too.
		return Mono.fromFuture(lostSignal(), true);
	}

	/**
	 * Return this hold as the listeners see it.
	 */
	@Override
	protected LockContext listenedTo() {
		return this.context;
	}

	@Override
	public Mono<Boolean> isHeld() {
		return Mono.defer(() -> (hold().isReleased() || hold().isLost()) ? Mono.just(false)
				: this.commands.isHeld(hold().grant()));
	}

	@Override
	public Mono<Void> extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		return Mono.fromCallable(() -> leaseMillis(lease))
			.flatMap((leaseMillis) -> Mono.<Long>create(
					(sink) -> hold().extend(this.port, leaseMillis, Completion.of(sink::success, sink::error))))
			.then();
	}

	@Override
	public Mono<Void> release() {
		return Mono.<Long>create((sink) -> hold().release(this.port, Completion.of(sink::success, sink::error))).then();
	}

	/**
	 * Release this hold, which its subscriber never got, without waiting for Redis and
	 * without keeping the lock for its minimum hold ({@link LockHold#releaseUnused}).
	 */
	void releaseUnused() {
		hold().releaseUnused(this.port, Completion.of((left) -> {
		}, (error) -> {
			// Nobody waits for this release: the hold then ends with its lease.
		}));
	}

	@Override
	public String toString() {
		return "ReactiveLockHandle[" + name() + ", token=" + fencingToken() + "]";
	}

	/**
	 * This hold as the {@link io.github.distributedlock.LockListener}s see it. They are
	 * called on Reactor's threads, where nothing may block, so {@link #isHeld()} answers
	 * from what this process knows, without asking Redis.
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

}
