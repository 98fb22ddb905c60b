package io.github.distributedlock.observation;

import io.github.distributedlock.redis.RedisLockTemplate;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Gauges of what one {@link RedisLockTemplate} is doing now:
 * {@code distributed.lock.held} (locks this process holds) and
 * {@code distributed.lock.waiting} (threads waiting for a lock). Registered on creation;
 * the gauges keep a weak reference to the template.
 */
public final class LockGauges {

	/**
	 * Register the gauges of a template.
	 * @param registry the meter registry
	 * @param template the template to watch
	 */
	public LockGauges(MeterRegistry registry, RedisLockTemplate template) {
		Gauge.builder("distributed.lock.held", template, (locks) -> locks.heldLocks().size())
			.description("Locks this process holds now")
			.register(registry);
		Gauge.builder("distributed.lock.waiting", template, RedisLockTemplate::waitingThreads)
			.description("Threads of this process waiting for a lock now")
			.register(registry);
	}

}
