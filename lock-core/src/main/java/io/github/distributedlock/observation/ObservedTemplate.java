package io.github.distributedlock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * What the blocking and the reactive observed templates share: the template that does the
 * locking, and how the {@link LockObservationDocumentation#LOCK} observation of one
 * locked execution is made, with the same convention for both.
 *
 * @param <D> the type of template observed
 */
abstract class ObservedTemplate<D> {

	private static final LockObservationConvention DEFAULT_CONVENTION = new DefaultLockObservationConvention();

	final D delegate;

	private final ObservationRegistry registry;

	private final @Nullable LockObservationConvention convention;

	ObservedTemplate(D delegate, ObservationRegistry registry, @Nullable LockObservationConvention convention) {
		this.delegate = delegate;
		this.registry = registry;
		this.convention = convention;
	}

	/**
	 * Return a new observation of the given context, not started yet.
	 */
	final Observation observation(LockObservationContext context) {
		return LockObservationDocumentation.LOCK.observation(this.convention, DEFAULT_CONVENTION, () -> context,
				this.registry);
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.delegate + "]";
	}

}
