package io.github.distributedlock.observation;

import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

import io.github.distributedlock.observation.LockObservationDocumentation.HighCardinalityKeyNames;
import io.github.distributedlock.observation.LockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LockObservationConvention}: observations named
 * {@code distributed.lock}, with the scope and the outcome as low-cardinality key values
 * and the keys and the origin as high-cardinality ones.
 */
public class DefaultLockObservationConvention implements LockObservationConvention {

	/**
	 * The name of the observation.
	 */
	public static final String NAME = "distributed.lock";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LockObservationContext context) {
		return "lock " + context.getScope();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
		return KeyValues.of(LowCardinalityKeyNames.SCOPE.withValue(context.getScope()),
				LowCardinalityKeyNames.OUTCOME.withValue(context.getOutcome().name().toLowerCase(Locale.ROOT)));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
		String keys = context.getLockNames()
			.stream()
			.map((name) -> Objects.toString(name.key(), ""))
			.collect(Collectors.joining(","));
		String origin = context.getOrigin();
		return KeyValues.of(HighCardinalityKeyNames.KEY.withValue(keys),
				HighCardinalityKeyNames.ORIGIN.withValue((origin != null) ? origin : "none"));
	}

}
