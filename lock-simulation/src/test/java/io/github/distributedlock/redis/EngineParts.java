package io.github.distributedlock.redis;

import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.driver.Cohorts;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.LockPort;

/**
 * Parts of the engine as the simulation's clients make them without a template, with what
 * a template passes when the feature is off.
 */
final class EngineParts {

	/** Told nothing of attempts: the clients count no holds by owner. */
	static final DriverCommands.AttemptWatch NO_WATCH = new DriverCommands.AttemptWatch() {
	};

	private EngineParts() {
	}

	/**
	 * Return local lines over the port, lingering as the engine's default does, with
	 * cohorts off.
	 */
	static LocalLines lines(LockPort port) {
		return new LocalLines(port, LockSimulation.LINGER_NANOS, new Cohorts(CohortLimits.OFF, (number) -> {
			throw new IllegalStateException("Cohorts are off");
		}));
	}

}
