package io.github.distributedlock.redis.core;

/** What an attempt's reply means, as {@link Acquisition#replied} decides it. */
public sealed interface AttemptOutcome permits AttemptOutcome.Held, AttemptOutcome.Late, AttemptOutcome.Failed,
		AttemptOutcome.Waiting, AttemptOutcome.Over {

	/** The lock is taken: wait, then try again. */
	AttemptOutcome WAIT = new Waiting();

	/** The lock is taken and the caller only tries once: the wait is over. */
	AttemptOutcome OVER = new Over();

	/** The attempt took the lock. */
	record Held(Grant grant) implements AttemptOutcome {

	}

	/**
	 * The attempt took the lock, but its lease had ended when the reply came: no hold.
	 * Send the attempt again at once if {@link Acquisition#retriesLateGrant()}, else
	 * release this grant (Redis may still keep it) and end the wait.
	 */
	record Late(Grant grant) implements AttemptOutcome {

	}

	/** The acquisition fails with this error: a self-deadlock. */
	record Failed(RuntimeException error) implements AttemptOutcome {

	}

	/** See {@link #WAIT}. */
	record Waiting() implements AttemptOutcome {

	}

	/** See {@link #OVER}. */
	record Over() implements AttemptOutcome {

	}

}
