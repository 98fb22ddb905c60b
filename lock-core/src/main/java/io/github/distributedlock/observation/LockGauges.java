package io.github.distributedlock.observation;

import io.github.distributedlock.LockOperations;
import io.github.distributedlock.ReactiveLockOperations;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * A {@link MeterBinder} of gauges of what one {@link LockOperations}, and the
 * {@link ReactiveLockOperations} beside it if there is one, are doing now:
 * {@code distributed.lock.held} (locks this process holds) and
 * {@code distributed.lock.waiting} (callers waiting for a lock: threads, and reactive
 * subscriptions, which take no thread). The gauges keep a weak reference to the blocking
 * locks.
 */
public final class LockGauges implements MeterBinder {

	private final LockOperations locks;

	private final @Nullable ReactiveLockOperations reactiveLocks;

	/**
	 * Create the gauges of a lock engine, to be bound to a registry.
	 * @param locks the locks to watch
	 */
	public LockGauges(LockOperations locks) {
		this(locks, null);
	}

	/**
	 * Create the gauges of the blocking and the reactive lock engines of a process, to be
	 * bound to a registry.
	 * @param locks the blocking locks to watch
	 * @param reactiveLocks the reactive locks to count with them, or {@code null}
	 */
	public LockGauges(LockOperations locks, @Nullable ReactiveLockOperations reactiveLocks) {
		this.locks = locks;
		this.reactiveLocks = reactiveLocks;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("distributed.lock.held", this.locks, (locks) -> locks.heldLocks().size() + reactiveHeld())
			.description("Locks this process holds now")
			.register(registry);
		Gauge.builder("distributed.lock.waiting", this.locks, (locks) -> locks.waitingThreads() + reactiveWaiting())
			.description("Callers of this process waiting for a lock now: threads, and reactive subscriptions")
			.register(registry);
	}

	private int reactiveHeld() {
		return (this.reactiveLocks != null) ? this.reactiveLocks.heldLocks().size() : 0;
	}

	private int reactiveWaiting() {
		return (this.reactiveLocks != null) ? this.reactiveLocks.waitingSubscriptions() : 0;
	}

}
