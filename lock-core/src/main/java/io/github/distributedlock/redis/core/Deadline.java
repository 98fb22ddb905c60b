package io.github.distributedlock.redis.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The clock of one acquisition, on a {@link NanoClock}: its wait budget (possibly
 * indefinite, possibly restarted when the lock changes hands) and the blocking holder's
 * lease as Redis last reported it, which bounds every sleep so that a crashed holder is
 * noticed when its lease ends. Not thread-safe: each acquisition has its own.
 */
public final class Deadline {

	/** Added to the holder's lease so that the attempt after it finds the lease over. */
	public static final long LEASE_END_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final NanoClock clock;

	private final long waitNanos;

	private final long startNanos;

	private long endNanos;

	private long holderTtlMillis = -1;

	private long holderSeenNanos;

	public Deadline(long waitNanos, long startNanos) {
		this(NanoClock.SYSTEM, waitNanos, startNanos);
	}

	/**
	 * @param waitNanos the wait time, negative to wait indefinitely
	 * @param startNanos when the wait started, on {@code clock}
	 */
	public Deadline(NanoClock clock, long waitNanos, long startNanos) {
		this.clock = clock;
		this.waitNanos = waitNanos;
		this.startNanos = startNanos;
		this.endNanos = startNanos + waitNanos;
	}

	boolean isIndefinite() {
		return this.waitNanos < 0;
	}

	boolean isTryOnce() {
		return this.waitNanos == 0;
	}

	public long remainingNanos() {
		return remainingNanos(this.clock.nanoTime());
	}

	/** Return the time left, {@link Long#MAX_VALUE} if indefinite; negative once over. */
	public long remainingNanos(long nowNanos) {
		return isIndefinite() ? Long.MAX_VALUE : this.endNanos - nowNanos;
	}

	/**
	 * Return the wait time left as the scripts take it: -1 for indefinitely, 0 only for a
	 * try, else at least 1. A script reads 0 as a caller that will not wait, and marks no
	 * lock for it; a waiter at its deadline may still wait on (a restart on progress).
	 */
	long remainingMillis() {
		if (isIndefinite()) {
			return -1;
		}
		return isTryOnce() ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos()));
	}

	/** Return the time left as a new wait time: -1 for indefinitely, else at least 0. */
	public long remainingBudgetNanos() {
		return isIndefinite() ? -1 : Math.max(0, remainingNanos());
	}

	/** Return when the wait started, restarts aside. */
	long startNanos() {
		return this.startNanos;
	}

	/**
	 * Return whether to send an attempt again at once after a grant that came too late:
	 * while wait time is left, and once for a try-once caller (its attempt did take the
	 * lock; the second confirms it with a lease it can use).
	 */
	boolean retriesLateGrant(int lateGrants) {
		return remainingNanos() > 0 || (isTryOnce() && lateGrants == 1);
	}

	void restartAt(long changedNanos) {
		this.endNanos = changedNanos + this.waitNanos;
	}

	boolean restartIfLater(long changedNanos) {
		if (changedNanos + this.waitNanos - this.endNanos > 0) {
			this.endNanos = changedNanos + this.waitNanos;
			return true;
		}
		return false;
	}

	/**
	 * Record the blocking holder's remaining lease as a reply reported it.
	 * @param ttlMillis negative if unknown (no expiry)
	 */
	void holderSeen(long ttlMillis, long seenNanos) {
		this.holderTtlMillis = ttlMillis;
		this.holderSeenNanos = seenNanos;
	}

	/**
	 * Take a hint that the lock is taken until {@code ttlMillis} after {@code fromNanos}:
	 * it may make the next attempt sooner, never later than the lease Redis reported.
	 */
	void holderMayEndSooner(long ttlMillis, long fromNanos) {
		if (this.holderTtlMillis < 0 || fromNanos + TimeUnit.MILLISECONDS.toNanos(ttlMillis)
				- (this.holderSeenNanos + TimeUnit.MILLISECONDS.toNanos(this.holderTtlMillis)) < 0) {
			holderSeen(ttlMillis, fromNanos);
		}
	}

	/**
	 * Return how long until the holder's lease ends, as last reported, plus
	 * {@link #LEASE_END_MARGIN_NANOS}; {@link Long#MAX_VALUE} if unknown.
	 */
	long untilHolderLeaseEnds() {
		if (this.holderTtlMillis < 0) {
			return Long.MAX_VALUE;
		}
		return Math.max(0, holderLeftNanos()) + LEASE_END_MARGIN_NANOS;
	}

	public long sleepNanos() {
		return Math.min(remainingNanos(), untilHolderLeaseEnds());
	}

	private long holderLeftNanos() {
		return TimeUnit.MILLISECONDS.toNanos(this.holderTtlMillis) - (this.clock.nanoTime() - this.holderSeenNanos);
	}

	public Duration elapsed() {
		return Duration.ofNanos(this.clock.nanoTime() - this.startNanos);
	}

	/** Return the holder's lease as the last reply reported it. */
	@Nullable HolderSighting holder() {
		return HolderSighting.of(this.holderTtlMillis, this.holderSeenNanos);
	}

	/**
	 * Build the exception for a wait that ran out, with the holder's lease this
	 * acquisition saw, or else what its local line saw ({@code line}).
	 */
	LockTimeoutException timeout(LockName name, @Nullable HolderSighting line) {
		HolderSighting seen = (this.holderTtlMillis >= 0) ? holder() : line;
		return new LockTimeoutException(name, elapsed(), (seen != null) ? seen.remaining(this.clock.nanoTime()) : null);
	}

}
