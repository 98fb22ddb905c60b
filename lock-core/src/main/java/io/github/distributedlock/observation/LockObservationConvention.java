package io.github.distributedlock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The {@link ObservationConvention} of locked executions; define one to change their name
 * or key values.
 *
 * @see DefaultLockObservationConvention
 */
public interface LockObservationConvention extends ObservationConvention<LockObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockObservationContext;
	}

}
