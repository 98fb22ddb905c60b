package io.github.distributedlock.redis.blocking;

import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;

/**
 * What the sleeping head of a {@link WaitQueue} offers to a release of this JVM that may
 * grant it the lock ({@code hand-over.lua}): its owner, hold id, lease and request. The
 * releaser {@linkplain #take() takes} an open offer, which is then <em>offered</em>: the
 * head may neither make its own attempt nor leave until the releaser {@linkplain #settle
 * settles} it (granted, refused or failed), and {@linkplain #withdraw() withdrawing}
 * waits for that. The thread that hears the lock reserved for the head's request takes
 * and settles it the same way, with the reply to the head's own attempt, which it sends
 * on the head's behalf. See {@code docs/design/waiting-and-hand-off.md}, "Hand-off inside
 * one JVM" and "Session 22". Thread-safe.
 */
final class HandOverOffer {

	private final String owner;

	private final String ownerDigest;

	private final String hold;

	private final long leaseMillis;

	private final String request;

	private final @Nullable OwnAttempt ownAttempt;

	// Guarded by this.
	private State state = State.OPEN;

	// Whether it was taken for the head's own attempt (takeForOwnAttempt), which a head
	// that stops need not wait for. Guarded by this.
	private boolean ownAttemptSent;

	private @Nullable Settlement settlement;

	/**
	 * @param owner the head's owner, whose lease writes the template's holds count
	 * @param ownerDigest its digest, which the script writes as the new owner
	 * @param hold the id of the head's acquisition
	 * @param leaseMillis the head's lease
	 * @param request the member of the head's request in the lock's line
	 * @param ownAttempt what the head's own attempt carries, for the thread that hears
	 * the lock reserved for its request, or {@code null} for a head that filed none
	 */
	HandOverOffer(String owner, String ownerDigest, String hold, long leaseMillis, String request,
			@Nullable OwnAttempt ownAttempt) {
		this.owner = owner;
		this.ownerDigest = ownerDigest;
		this.hold = hold;
		this.leaseMillis = leaseMillis;
		this.request = request;
		this.ownAttempt = ownAttempt;
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

	@Nullable OwnAttempt ownAttempt() {
		return this.ownAttempt;
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
	 * Take the offer for the head's own attempt, sent by the thread that heard the lock
	 * reserved for its request, if it is still open.
	 * @return whether the caller now settles it
	 */
	synchronized boolean takeForOwnAttempt() {
		if (!take()) {
			return false;
		}
		this.ownAttemptSent = true;
		return true;
	}

	/**
	 * Settle a taken offer and wake a head waiting in {@link #withdraw()}.
	 * @return whether the head takes the settlement: {@code false} if it abandoned the
	 * offer ({@link #abandon()})
	 */
	synchronized boolean settle(Settlement settled) {
		if (this.state == State.OFFERED) {
			this.settlement = settled;
			this.state = State.SETTLED;
			notifyAll();
			return true;
		}
		return false;
	}

	/**
	 * Withdraw the offer for a head that stops (interrupted, shut down): as
	 * {@link #withdraw()}, except that an offer taken for the head's own attempt is not
	 * waited for. That attempt may have run, as one whose reply an interrupt threw away:
	 * it is reported {@linkplain Settlement#FAILED failed}, so that the head undoes it
	 * with one more attempt of its hold id (on the same connection, behind it), and its
	 * reply then changes nothing here.
	 * @return how the offer was settled, or {@code null} if nobody took it
	 */
	synchronized @Nullable Settlement abandon() {
		if (this.state == State.OFFERED && this.ownAttemptSent) {
			this.state = State.ABANDONED;
			return Settlement.FAILED;
		}
		return withdraw();
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

	/**
	 * What the head's own attempt carries besides its owner, hold id and lease: the lock,
	 * its request as filed, and whether its owner holds the lock through a handle.
	 */
	record OwnAttempt(LockSpec spec, HandOffRequest request, boolean holdsIt) {
	}

	private enum State {

		OPEN, OFFERED, SETTLED, WITHDRAWN, ABANDONED

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
