package io.github.distributedlock.redis.core;

/** What the head of a line does next ({@link Acquisition#whileHead}). */
enum HeadStep {

	/** Try again now. */
	TRY,

	/** Sleep until a message or {@link Acquisition#sleepNanos()}, then decide again. */
	SLEEP,

	/** The wait time is over. */
	GIVE_UP

}
