package io.github.distributedlock.redis.blocking;

import org.jspecify.annotations.Nullable;

/**
 * What the sleeping head of a {@link WaitQueue} offers to a release of this JVM that may
 * grant it the lock ({@code hand-over.lua}): its owner, hold id, lease and request. The
 * releaser {@linkplain #take() takes} an open offer, which is then <em>offered</em>: the
 * head may neither make its own attempt nor leave until the releaser {@linkplain #settle
 * settles} it (granted, refused or failed), and {@linkplain #withdraw() withdrawing}
 * waits for that. See {@code docs/design/waiting-and-hand-off.md}, "Hand-off inside one
 * JVM". Thread-safe.
 */
final class HandOverOffer {

	private final String owner;

	private final String ownerDigest;

	private final String hold;

	private final long leaseMillis;

	private final String request;

	// Guarded by this.
	private State state = State.OPEN;

	private @Nullable Settlement settlement;

	/**
	 * @param owner the head's owner, whose lease writes the template's holds count
	 * @param ownerDigest its digest, which the script writes as the new owner
	 * @param hold the id of the head's acquisition
	 * @param leaseMillis the head's lease
	 * @param request the member of the head's request in the lock's line
	 */
	HandOverOffer(String owner, String ownerDigest, String hold, long leaseMillis, String request) {
		this.owner = owner;
		this.ownerDigest = ownerDigest;
		this.hold = hold;
		this.leaseMillis = leaseMillis;
		this.request = request;
	}

	String owner() {
		return this.owner;
	}

	String ownerDigest() {
		return this.ownerDigest;
	}

	String hold() {
		return this.hold;
	}

	long leaseMillis() {
		return this.leaseMillis;
	}

	String request() {
		return this.request;
	}

	/**
	 * Take the offer for a release, if it is still open.
	 * @return whether the caller now settles it
	 */
	synchronized boolean take() {
		if (this.state != State.OPEN) {
			return false;
		}
		this.state = State.OFFERED;
		return true;
	}

	/**
	 * Settle a taken offer and wake a head waiting in {@link #withdraw()}.
	 */
	synchronized void settle(Settlement settled) {
		if (this.state == State.OFFERED) {
			this.settlement = settled;
			this.state = State.SETTLED;
			notifyAll();
		}
	}

	/**
	 * Withdraw the offer, for a head that wakes up: if a release took it, wait until it
	 * is settled (at most two command timeouts: the hand-over, and after a refusal the
	 * release), even on an interrupted thread, whose interrupt is kept.
	 * @return how the offer was settled, or {@code null} if no release took it
	 */
	synchronized @Nullable Settlement withdraw() {
		if (this.state == State.OPEN) {
			this.state = State.WITHDRAWN;
			return null;
		}
		boolean interrupted = false;
		while (this.state == State.OFFERED) {
			try {
				wait();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		return this.settlement;
	}

	private enum State {

		OPEN, OFFERED, SETTLED, WITHDRAWN

	}

	/**
	 * How a release settled an offer.
	 *
	 * @param outcome granted, refused or failed
	 * @param token the token a grant gave, else 0
	 * @param sentNanos the releaser's clock reading before it sent the hand-over, from
	 * which a grant's lease counts
	 */
	record Settlement(Outcome outcome, long token, long sentNanos) {

		static final Settlement REFUSED = new Settlement(Outcome.REFUSED, 0, 0);

		static final Settlement FAILED = new Settlement(Outcome.FAILED, 0, 0);

		static Settlement granted(long token, long sentNanos) {
			return new Settlement(Outcome.GRANTED, token, sentNanos);
		}

	}

	/**
	 * What the hand-over did.
	 */
	enum Outcome {

		/** The head holds the lock, with the settlement's token. */
		GRANTED,

		/**
		 * Refused: the releaser's hold was released as usual (at the limit, by the
		 * hand-over itself); the head tries again.
		 */
		REFUSED,

		/** No reply: the head's own attempt finds the grant if the hand-over ran. */
		FAILED

	}

}
