package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

/**
 * The decisions of a fair waiter, without I/O: when to call Redis again to keep its place
 * in the queue, and whether what its line heard makes it its turn. The driver's
 * {@code FairAcquisition}, for both templates, and the simulation run this same piece, so
 * that a fix to when a fair waiter tries is made once.
 * <p>
 * Not thread-safe: each driver calls it under its own state lock (or on its one thread).
 */
public final class FairTurn {

	private final long heartbeatNanos;

	// The owner as a release names the next waiter.
	private final String digest;

	private int rank = -1;

	// The plain releases heard before the last attempt: one more wakes the first waiter.
	private long plainSeen;

	public FairTurn(LockSpec spec, String owner) {
		// Three calls per waiter timeout: two may be lost before Redis drops the waiter.
		this.heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(spec.fairWaiterTimeoutMillis()) / 3;
		this.digest = LockOwners.digest(owner);
	}

	/**
	 * Return how often the waiter calls Redis to keep its place.
	 */
	public long heartbeatNanos() {
		return this.heartbeatNanos;
	}

	/**
	 * Note that an attempt is sent, with the plain releases its line heard so far.
	 */
	public void attempting(WaitLine line) {
		this.plainSeen = line.plainSignals();
	}

	/**
	 * Note the waiter's place in the queue, as an attempt's reply gave it (from 0, or -1
	 * if it is not queued).
	 */
	public void replied(int rank) {
		this.rank = rank;
	}

	/**
	 * Return how long to sleep before the next attempt at most: until the wait time is
	 * over, the holder's lease ends, or the place must be kept, whichever comes first.
	 */
	public long sleepNanos(Deadline deadline) {
		return Math.max(0, Math.min(deadline.sleepNanos(), this.heartbeatNanos));
	}

	/**
	 * Return whether it is this waiter's turn to try: a release named it as next (which
	 * is then forgotten), or, first in line, a plain release (one that names no fair
	 * waiter) was heard since the last attempt: a plain hold of the lock does not know
	 * the queue.
	 */
	public boolean isTurn(WaitLine line) {
		return line.consumeAddressed(this.digest) || (this.rank == 0 && line.plainSignals() != this.plainSeen);
	}

}
