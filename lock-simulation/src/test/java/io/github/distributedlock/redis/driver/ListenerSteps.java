package io.github.distributedlock.redis.driver;

/**
 * The first step of a line's listener thread that hears a loss, for the cohort simulation
 * to run while another thread is paused: the listener tells the template's cohorts
 * ({@link Cohorts#lost}) before it wakes anyone, which waits for the paused thread's
 * locks.
 */
public final class ListenerSteps {

	private ListenerSteps() {
	}

	/** Tell the cohorts that a line of the lock heard that its hold may be gone. */
	public static void lossHeard(Cohorts cohorts, String lockKey) {
		cohorts.lost(lockKey);
	}

}
