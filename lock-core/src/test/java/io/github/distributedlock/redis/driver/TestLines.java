package io.github.distributedlock.redis.driver;

import java.lang.reflect.Field;
import java.util.Map;

import io.github.distributedlock.redis.core.CohortLimits;

/**
 * Local lines and cohorts with cohorts off, as a template without cohorts makes them, for
 * tests that drive lines without a template; and the count of the cohorts' entries, read
 * by reflection as only tests count them.
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

	/**
	 * Return how many locks have an entry in the cohorts: pinned, or with a cohort open.
	 */
	static int entries(Cohorts cohorts) {
		try {
			Field locks = Cohorts.class.getDeclaredField("locks");
			locks.setAccessible(true);
			return ((Map<?, ?>) locks.get(cohorts)).size();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
