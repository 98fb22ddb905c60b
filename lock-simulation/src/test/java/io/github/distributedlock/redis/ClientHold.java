package io.github.distributedlock.redis;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HoldLife;
import org.jspecify.annotations.Nullable;

/**
 * A hold of one lock in a run of multi-locks, as its client's handle sees it: the grant,
 * and its life by the engine's own {@link HoldLife} (the deadline, which the replies of
 * renewals and extensions move later in the order they are read, and what is left of its
 * minimum hold when it is released).
 */
final class ClientHold {

	final String holder;

	final String owner;

	final Grant grant;

	final HoldLife life;

	// When the granting reply was read: the handle counts the minimum hold from then.
	final long acquiredNanos;

	// The hold of the same client, lock and token this one is nested in (a re-entry that
	// joined it), or null: the checker counts the two as one hold.
	final @Nullable ClientHold outer;

	// The release was sent, or a renewal's or an extension's reply said the hold is gone.
	boolean released;

	boolean lost;

	ClientHold(String holder, String owner, Grant grant, long acquiredNanos, @Nullable ClientHold outer) {
		this.holder = holder;
		this.owner = owner;
		this.grant = grant;
		this.acquiredNanos = acquiredNanos;
		this.life = new HoldLife(grant, acquiredNanos);
		this.outer = (outer != null && outer.grant.token() == grant.token()) ? outer : null;
	}

	Grant grant() {
		return this.grant;
	}

	String key() {
		return this.grant.spec().lockKey();
	}

	long endNanos() {
		return this.life.leaseEndNanos();
	}

	boolean live(long nowNanos) {
		return !this.released && !this.lost && !this.life.isOver(nowNanos);
	}

	boolean reader() {
		return this.grant.spec().kind().waitsAsReader();
	}

	@Override
	public String toString() {
		return this.grant.spec().name().key() + " (token " + this.grant.token() + ", " + this.grant.spec().leaseMillis()
				+ " ms)";
	}

}
