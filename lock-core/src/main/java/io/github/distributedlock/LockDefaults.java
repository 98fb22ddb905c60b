package io.github.distributedlock;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings used for whatever a {@link LockRequest} leaves unset.
 *
 * @param lease how long a lock stays ours if never released
 * @param waitTime how long to wait for a taken lock; zero means try once
 * @param waitStrategy how waiters learn that a lock may be free
 * @param reentrant whether the holding thread may take a lock again
 * @param progressAwareTimeout whether the wait time restarts when the lock changes hands
 * @param pollInterval how often {@link WaitStrategy#POLLING} retries
 */
public record LockDefaults(Duration lease, Duration waitTime, WaitStrategy waitStrategy, boolean reentrant,
		boolean progressAwareTimeout, Duration pollInterval) {

	/**
	 * Defaults that suit most applications: a 30 s lease, a 10 s wait, pub/sub wake-ups,
	 * reentrant, and a 100 ms poll interval for the polling strategy.
	 */
	public static final LockDefaults STANDARD = new LockDefaults(Duration.ofSeconds(30), Duration.ofSeconds(10),
			WaitStrategy.PUBSUB, true, false, Duration.ofMillis(100));

	public LockDefaults {
		Objects.requireNonNull(lease, "lease must not be null");
		Objects.requireNonNull(waitTime, "waitTime must not be null");
		Objects.requireNonNull(waitStrategy, "waitStrategy must not be null");
		Objects.requireNonNull(pollInterval, "pollInterval must not be null");
		if (!LockRequest.isValidLease(lease)) {
			throw new IllegalArgumentException("Default lease must be between 1 ms and "
					+ LockRequest.MAX_LEASE.toDays() + " days, but was " + lease);
		}
		if (waitTime.isNegative()) {
			throw new IllegalArgumentException("Default wait time must not be negative, but was " + waitTime);
		}
		if (pollInterval.compareTo(Duration.ofMillis(1)) < 0 || pollInterval.compareTo(Duration.ofDays(1)) > 0) {
			throw new IllegalArgumentException("Poll interval must be between 1 ms and 1 day, but was " + pollInterval);
		}
	}

	public LockDefaults withLease(Duration lease) {
		return new LockDefaults(lease, this.waitTime, this.waitStrategy, this.reentrant, this.progressAwareTimeout,
				this.pollInterval);
	}

	public LockDefaults withWaitTime(Duration waitTime) {
		return new LockDefaults(this.lease, waitTime, this.waitStrategy, this.reentrant, this.progressAwareTimeout,
				this.pollInterval);
	}

	public LockDefaults withWaitStrategy(WaitStrategy waitStrategy) {
		return new LockDefaults(this.lease, this.waitTime, waitStrategy, this.reentrant, this.progressAwareTimeout,
				this.pollInterval);
	}

	public LockDefaults withReentrant(boolean reentrant) {
		return new LockDefaults(this.lease, this.waitTime, this.waitStrategy, reentrant, this.progressAwareTimeout,
				this.pollInterval);
	}

	public LockDefaults withProgressAwareTimeout(boolean progressAwareTimeout) {
		return new LockDefaults(this.lease, this.waitTime, this.waitStrategy, this.reentrant, progressAwareTimeout,
				this.pollInterval);
	}

	public LockDefaults withPollInterval(Duration pollInterval) {
		return new LockDefaults(this.lease, this.waitTime, this.waitStrategy, this.reentrant, this.progressAwareTimeout,
				pollInterval);
	}

}
