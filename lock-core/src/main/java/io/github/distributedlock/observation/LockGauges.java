package io.github.distributedlock.observation;

import io.github.distributedlock.LockOperations;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * A {@link MeterBinder} of gauges of what one {@link LockOperations} is doing now:
 * {@code distributed.lock.held} (locks this process holds) and
 * {@code distributed.lock.waiting} (threads waiting for a lock). The gauges keep a weak
 * reference to the locks.
 */
public final class LockGauges implements MeterBinder {

	private final LockOperations locks;

	/**
	 * Create the gauges of a lock engine, to be bound to a registry.
	 * @param locks the locks to watch
	 */
	public LockGauges(LockOperations locks) {
		this.locks = locks;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("distributed.lock.held", this.locks, (locks) -> locks.heldLocks().size())
			.description("Locks this process holds now")
			.register(registry);
		Gauge.builder("distributed.lock.waiting", this.locks, LockOperations::waitingThreads)
			.description("Threads of this process waiting for a lock now")
			.register(registry);
	}

}
