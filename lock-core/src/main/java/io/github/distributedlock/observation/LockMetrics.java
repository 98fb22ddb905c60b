package io.github.distributedlock.observation;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.aop.LockTimeoutContext;
import io.github.distributedlock.aop.LockTimeoutListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Meters of lock activity, tagged with the lock's scope as {@code lock.scope}, the name
 * the observations use (never its key, whose values are unbounded). Register it with the
 * lock template as a {@link LockListener} and with the aspect as a
 * {@link LockTimeoutListener}:
 * <ul>
 * <li>{@code distributed.lock.wait} (timer): time from the first attempt to
 * acquisition</li>
 * <li>{@code distributed.lock.hold} (timer): time from acquisition to release</li>
 * <li>{@code distributed.lock.acquired} (counter): acquisitions</li>
 * <li>{@code distributed.lock.timeouts} (counter): locks not acquired within the wait
 * time</li>
 * <li>{@code distributed.lock.skipped} (counter): annotated calls skipped on timeout</li>
 * <li>{@code distributed.lock.fallbacks} (counter): annotated calls that fell back on
 * timeout</li>
 * <li>{@code distributed.lock.leases.lost} (counter): holds found lost when released or
 * extended</li>
 * </ul>
 * The meters of a scope are registered at zero when the aspect declares the scope of an
 * annotated method ({@link #scopeDeclared(String)}), so that they can be charted and
 * alerted on before anything happens; call it for a scope only used through the template
 * to do the same. The meters of other scopes appear on their first event. Thread-safe.
 *
 * @see LockGauges
 */
public final class LockMetrics implements LockListener, LockTimeoutListener {

	/**
	 * The tag holding the lock scope: the same key as the observations'
	 * {@link LockObservationDocumentation.LowCardinalityKeyNames#SCOPE}, so that meters
	 * and observation timers of one lock can be joined on it.
	 */
	public static final String SCOPE_TAG = "lock.scope";

	private final MeterProvider<Timer> wait;

	private final MeterProvider<Timer> hold;

	private final MeterProvider<Counter> acquired;

	private final MeterProvider<Counter> timeouts;

	private final MeterProvider<Counter> skipped;

	private final MeterProvider<Counter> fallbacks;

	private final MeterProvider<Counter> leasesLost;

	/**
	 * Create the meters on the given registry.
	 * @param registry the meter registry
	 */
	public LockMetrics(MeterRegistry registry) {
		this.wait = Timer.builder("distributed.lock.wait")
			.description("Time from the first attempt to acquiring a lock")
			.withRegistry(registry);
		this.hold = Timer.builder("distributed.lock.hold")
			.description("Time a lock was held, from acquisition to release")
			.withRegistry(registry);
		this.acquired = counter(registry, "distributed.lock.acquired", "Locks acquired");
		this.timeouts = counter(registry, "distributed.lock.timeouts", "Locks not acquired within the wait time");
		this.skipped = counter(registry, "distributed.lock.skipped",
				"Calls of @DistributedLock methods skipped because the lock timed out");
		this.fallbacks = counter(registry, "distributed.lock.fallbacks",
				"Calls of @DistributedLock methods that called their fallback because the lock timed out");
		this.leasesLost = counter(registry, "distributed.lock.leases.lost",
				"Holds found lost (expired or taken) when released or extended");
	}

	private static MeterProvider<Counter> counter(MeterRegistry registry, String name, String description) {
		return Counter.builder(name).description(description).withRegistry(registry);
	}

	@Override
	public void acquired(LockContext context) {
		String scope = context.name().scope();
		this.acquired.withTag(SCOPE_TAG, scope).increment();
		this.wait.withTag(SCOPE_TAG, scope).record(context.waitedFor());
	}

	@Override
	public void notAcquired(LockName name, Duration waited) {
		this.timeouts.withTag(SCOPE_TAG, name.scope()).increment();
	}

	@Override
	public void released(LockContext context, Duration heldFor) {
		this.hold.withTag(SCOPE_TAG, context.name().scope()).record(heldFor);
	}

	@Override
	public void leaseLost(LockContext context) {
		this.leasesLost.withTag(SCOPE_TAG, context.name().scope()).increment();
	}

	/**
	 * Register every meter of a scope, at zero where it does not exist yet.
	 * @param scope the lock scope
	 */
	@Override
	public void scopeDeclared(String scope) {
		this.wait.withTag(SCOPE_TAG, scope);
		this.hold.withTag(SCOPE_TAG, scope);
		for (MeterProvider<Counter> counter : List.of(this.acquired, this.timeouts, this.skipped, this.fallbacks,
				this.leasesLost)) {
			counter.withTag(SCOPE_TAG, scope);
		}
	}

	@Override
	public void timedOut(LockTimeoutContext timeout) {
		String scope = timeout.getLocks().get(0).scope();
		switch (timeout.getOnTimeout()) {
			case SKIP -> this.skipped.withTag(SCOPE_TAG, scope).increment();
			case FALLBACK -> this.fallbacks.withTag(SCOPE_TAG, scope).increment();
			case THROW, DEFAULT -> {
				// Counted as distributed.lock.timeouts already (DEFAULT, settled at
				// startup, never gets here).
			}
		}
	}

}
