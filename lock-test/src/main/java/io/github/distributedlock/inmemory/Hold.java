package io.github.distributedlock.inmemory;

import org.jspecify.annotations.Nullable;

/**
 * One owner's hold on a lock, a read lock or a permit, counted for re-entry. A hold whose
 * owner released it before its minimum hold passed stays as a lingering hold: owned by
 * nobody, so nobody can release, extend or re-enter it, until its lease ends.
 */
final class Hold {

	static final String NOBODY = "";

	final String owner;

	final long token;

	final Lease lease;

	int count = 1;

	private long holdUntil;

	private boolean minimum;

	Hold(String owner, long token, Lease lease) {
		this.owner = owner;
		this.token = token;
		this.lease = lease;
	}

	boolean isOwnedBy(String owner, long token) {
		return this.owner.equals(owner) && this.token == token;
	}

	boolean isLingering() {
		return this.owner.equals(NOBODY);
	}

	/**
	 * Keep the lock taken until at least {@code until} once released.
	 */
	void holdUntil(long until) {
		if (!this.minimum || until - this.holdUntil > 0) {
			this.holdUntil = until;
			this.minimum = true;
		}
	}

	/**
	 * Return the hold that stays once the last release came before the minimum hold, or
	 * {@code null} when the lock is free at once.
	 */
	@Nullable Hold lingering(long now) {
		if (!this.minimum || this.holdUntil - now <= 0) {
			return null;
		}
		long end = this.lease.lingerEnd(now, this.holdUntil);
		if (end - now <= 0) {
			return null;
		}
		return new Hold(NOBODY, this.token, new Lease(now, end - now, false));
	}

}
