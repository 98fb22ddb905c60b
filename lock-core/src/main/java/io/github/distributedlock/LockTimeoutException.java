package io.github.distributedlock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be acquired within the wait time.
 */
public class LockTimeoutException extends LockException {

	private final Duration waited;

	private final @Nullable Duration holderRemainingLease;

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
