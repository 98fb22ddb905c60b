package io.github.distributedlock.redis.driver;

import io.github.distributedlock.redis.core.CohortLimits;

/**
 * Local lines and cohorts with cohorts off, as a template without cohorts makes them, for
 * tests that drive lines without a template.
 */
final class TestLines {

	private TestLines() {
	}

	/**
	 * @param lingerNanos how long a line stays subscribed once nobody waits in it
	 */
	static LocalLines of(LockPort port, long lingerNanos) {
		return new LocalLines(port, lingerNanos, cohortsOff());
	}

	/** Cohorts off: nothing opens one, so no cohort's owner is ever asked for. */
	static Cohorts cohortsOff() {
		return new Cohorts(CohortLimits.OFF, (number) -> {
			throw new IllegalStateException("Cohorts are off");
		});
	}

}
