package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.LockHold;
import org.jspecify.annotations.Nullable;

/**
 * A hold of one lock in a run of multi-locks, as its client counts on it: the engine's
 * own {@link LockHold} (its lease by the local clock, its renewals, extensions and
 * release), and the deadline its holder counts on, as the checks were told it. What
 * becomes of the hold goes to the run's {@link MultiLockChecks}.
 */
final class ClientHold implements LockHold.Events {

	final String holder;

	final String owner;

	final Grant grant;

	final LockHold hold;

	// When the granting reply was read: the hold counts the minimum hold from then.
	final long acquiredNanos;

	// The hold of the same client, lock and token this one is nested in (a re-entry that
	// joined it), or null: the checker counts the two as one hold.
	final @Nullable ClientHold outer;

	private final MultiLockChecks checks;

	// The hold's lease end when its holder last counted on it: a reply read after it had
	// passed moves it no more (the holder was told the lease was lost, and stopped).
	private long endNanos;

	// Whether the last reply to a renewal or an extension moved that deadline.
	boolean confirmed;

	// What its release keeps for the minimum hold, if anything.
	@Nullable KeptLock keeping;

	// Whether its release may get no reply within the command timeout (a lock an
	// InOrderClient releases through its call's port).
	boolean releaseMayTimeOut;

	ClientHold(String holder, String owner, Grant grant, long acquiredNanos, @Nullable ClientHold outer,
			MultiLockChecks checks) {
		this.holder = holder;
		this.owner = owner;
		this.grant = grant;
		this.acquiredNanos = acquiredNanos;
		this.outer = (outer != null && outer.grant.token() == grant.token()) ? outer : null;
		this.checks = checks;
		this.hold = new LockHold(grant, acquiredNanos, true, this, null);
		this.endNanos = this.hold.leaseEndNanos();
	}

	Grant grant() {
		return this.grant;
	}

	String key() {
		return this.grant.spec().lockKey();
	}

	long endNanos() {
		return this.endNanos;
	}

	boolean live(long nowNanos) {
		return !this.hold.isReleased() && !this.hold.isLost() && this.endNanos - nowNanos > 0;
	}

	boolean reader() {
		return this.grant.spec().kind().waitsAsReader();
	}

	/**
	 * A renewal's or an extension's reply: a live hold's deadline moves to the hold's
	 * lease end.
	 */
	@Override
	public void replied(LockHold hold, long leaseMillis) {
		this.confirmed = leaseMillis >= 0 && live(this.checks.nanos());
		if (this.confirmed) {
			if (hold.leaseEndNanos() - this.endNanos > 0) {
				this.endNanos = hold.leaseEndNanos();
			}
			this.checks.extended(this);
		}
	}

	@Override
	public void released(LockHold hold, long result) {
		KeptLock keep = this.keeping;
		if (keep != null) {
			this.checks.keptRead(this, keep, result >= 0);
		}
	}

	/**
	 * The listeners hear of a release without a reply, which no run of multi-locks draws.
	 */
	@Override
	public void releaseFailed(LockHold hold, LockAccessException failure) {
		if (this.releaseMayTimeOut && failure.getMessage().contains(InOrderPort.NO_REPLY)) {
			return;
		}
		this.checks
			.violated(this.holder + "'s release of " + this + " failed with no reply lost: " + failure.getMessage());
	}

	/**
	 * The listeners hear how long the hold lasted: from when its grant's reply was read,
	 * as its holder counts it.
	 */
	@Override
	public void releasedAfter(LockHold hold, Duration heldFor) {
		long held = this.checks.nanos() - this.acquiredNanos;
		if (heldFor.toNanos() != held) {
			this.checks.violated(this.holder + "'s " + this + " was reported held for " + heldFor.toNanos() / 1e6
					+ " ms, but was held " + held / 1e6 + " ms");
		}
	}

	/**
	 * A renewal's or an extension's reply said the hold is gone: its holder stops
	 * counting on it.
	 */
	@Override
	public void lost(LockHold hold, boolean goneFromRedis) {
		if (!hold.isReleased()) {
			this.checks.lost(this);
		}
	}

	@Override
	public String toString() {
		return this.grant.spec().name().key() + " (token " + this.grant.token() + ", " + this.grant.spec().leaseMillis()
				+ " ms)";
	}

}
