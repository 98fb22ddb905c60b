package io.github.distributedlock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be acquired within the wait time.
 */
public class LockTimeoutException extends LockException {

	private final Duration waited;

	private final @Nullable Duration holderRemainingLease;

	private final String why;

	public LockTimeoutException(LockName lockName, Duration waited, @Nullable Duration holderRemainingLease) {
		this(lockName, waited, holderRemainingLease,
				(holderRemainingLease != null)
						? "the holder's lease had about " + format(holderRemainingLease) + " left"
						: "the holder's remaining lease is unknown");
	}

	/**
	 * @param why why it was not acquired, in the message after the time waited
	 */
	public LockTimeoutException(LockName lockName, Duration waited, @Nullable Duration holderRemainingLease,
			String why) {
		super(lockName, "not acquired after waiting " + format(waited) + "; " + why, null);
		this.waited = waited;
		this.holderRemainingLease = holderRemainingLease;
		this.why = why;
	}

	/**
	 * Return the same timeout, for a caller that waited longer in all: a multi-lock that
	 * waited for this lock after taking others.
	 * @param waited how long the caller waited in all
	 * @return the timeout, with the time waited in all and the same reason
	 */
	public LockTimeoutException afterWaiting(Duration waited) {
		return new LockTimeoutException(getLockName(), waited, this.holderRemainingLease, this.why);
	}

	/**
	 * Return how long the caller waited.
	 * @return the time waited
	 */
	public Duration getWaited() {
		return this.waited;
	}

	/**
	 * Return the holder's remaining lease when last seen, if known.
	 * @return the holder's remaining lease, or {@code null}
	 */
	public @Nullable Duration getHolderRemainingLease() {
		return this.holderRemainingLease;
	}

	static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis < 10_000) ? millis + " ms" : (millis / 1000) + " s";
	}

}
