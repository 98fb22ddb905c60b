package io.github.distributedlock.redis.core;

/**
 * What an attempt's reply means, as {@link Acquisition#replied} decides it: {@link Held},
 * {@link Late}, {@link Failed}, {@link #OVER} or {@link #WAIT}.
 */
public sealed interface AttemptOutcome permits AttemptOutcome.Held, AttemptOutcome.Late, AttemptOutcome.Failed,
		AttemptOutcome.Waiting, AttemptOutcome.Over {

	/** The lock is taken: wait, then try again. */
	AttemptOutcome WAIT = new Waiting();

	/** The lock is taken and the caller only tries once: the wait is over. */
	AttemptOutcome OVER = new Over();

	/**
	 * The attempt took the lock.
	 *
	 * @param grant what it won
	 */
	record Held(Grant grant) implements AttemptOutcome {

	}

	/**
	 * The attempt took the lock, but its lease had ended when the reply came: no hold the
	 * caller may use. Send the attempt again at once if
	 * {@link Acquisition#retriesLateGrant()}, else release this grant (it may still hold
	 * the lock in Redis) and end the wait.
	 *
	 * @param grant what the attempt took
	 */
	record Late(Grant grant) implements AttemptOutcome {

	}

	/**
	 * The acquisition ends without the lock, with an error.
	 *
	 * @param error what the caller gets: a self-deadlock
	 */
	record Failed(RuntimeException error) implements AttemptOutcome {

	}

	/**
	 * The lock is taken: wait, then try again.
	 */
	record Waiting() implements AttemptOutcome {

	}

	/**
	 * The caller only tries once, and the lock is taken.
	 */
	record Over() implements AttemptOutcome {

	}

}
