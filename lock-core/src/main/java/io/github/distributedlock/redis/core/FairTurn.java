package io.github.distributedlock.redis.core;

import java.util.concurrent.TimeUnit;

/**
 * The decisions of a fair waiter, without I/O: when to call Redis again to keep its place
 * in the queue, and whether what its line heard makes it its turn. Not thread-safe: one
 * call at a time (the driver's state lock).
 */
public final class FairTurn {

	private final long heartbeatNanos;

	// This acquisition as a release names the next waiter: its place in the queue.
	private final String waiter;

	private int rank = -1;

	// The plain releases heard before the last attempt: one more wakes the first waiter.
	private long plainSeen;

	// For a custom owner, whose acquisitions may take each other's turn (any process's):
	// the releases heard before the last attempt that named a waiter; one more wakes it.
	private final boolean custom;

	private long namedSeen;

	/**
	 * @param hold the hold the acquisition asks for: each acquisition has a place of its
	 * own in the queue, two of one owner too
	 */
	public FairTurn(LockSpec spec, String owner, String hold) {
		// Three calls per waiter timeout: two may be lost before Redis drops the waiter.
		this.heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(spec.fairWaiterTimeoutMillis()) / 3;
		this.waiter = LockOwners.digest(owner) + "|" + hold;
		this.custom = LockOwners.isCustom(owner);
	}

	/** Note that an attempt is sent, with the plain releases its line heard so far. */
	public void attempting(WaitLine line) {
		this.plainSeen = line.plainSignals();
		this.namedSeen = line.namedSignals();
	}

	/** Note the waiter's place in the queue ({@link AcquireResult#rank()}). */
	public void replied(int rank) {
		this.rank = rank;
	}

	public long sleepNanos(Deadline deadline) {
		return Math.max(0, Math.min(deadline.sleepNanos(), this.heartbeatNanos));
	}

	/**
	 * Return whether it is this waiter's turn to try: a release named it as next (then
	 * forgotten); a custom owner's waiter heard a release name anyone since its last
	 * attempt (it may be another acquisition of its owner, whose turn is its own too);
	 * or, first in line, it heard a plain release since its last attempt, as a plain hold
	 * of the lock does not know the queue.
	 */
	public boolean isTurn(WaitLine line) {
		return line.consumeAddressed(this.waiter) || (this.custom && line.namedSignals() != this.namedSeen)
				|| (this.rank == 0 && line.plainSignals() != this.plainSeen);
	}

}
