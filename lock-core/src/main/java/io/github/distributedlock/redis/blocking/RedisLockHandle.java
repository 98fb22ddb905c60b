package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HoldLife;
import io.github.distributedlock.redis.core.LockSpec;

/**
 * A hold of a lock in Redis: the owner and fencing token that the release and extend
 * scripts check. It reports its release and loss to the {@link HoldRegistry} that made
 * it.
 */
public final class RedisLockHandle implements LockHandle {

	/** A release whose reply never came. */
	static final long UNKNOWN = Long.MIN_VALUE;

	private final Grant grant;

	private final LockSpec spec;

	private final String owner;

	private final long token;

	private final boolean waited;

	private final Duration waitedFor;

	private final int attempts;

	private final HoldRegistry registry;

	private final LockCommands commands;

	private final AtomicBoolean released = new AtomicBoolean();

	private final String thread = Thread.currentThread().getName();

	private final Instant since = Instant.now();

	private final HoldLife life;

	// When the lease Redis keeps for this hold's last write has ended at the latest:
	// Redis set it before replying, so counted from after the reply (see HoldRegistry).
	private volatile long redisLeaseBoundNanos;

	private final AtomicBoolean lost = new AtomicBoolean();

	private final CompletableFuture<Void> lostSignal = new CompletableFuture<>();

	/**
	 * @param grant what the acquisition won; the lease counts from its {@code sentNanos}
	 */
	RedisLockHandle(Grant grant, HoldRegistry registry, LockCommands commands) {
		this.grant = grant;
		this.spec = grant.spec();
		this.owner = grant.owner();
		this.token = grant.token();
		this.waited = grant.waited();
		this.waitedFor = grant.waitedFor();
		this.attempts = grant.attempts();
		this.registry = registry;
		this.commands = commands;
		long grantedNanos = System.nanoTime();
		this.life = new HoldLife(grant, grantedNanos);
		this.redisLeaseBoundNanos = grantedNanos + TimeUnit.MILLISECONDS.toNanos(this.spec.leaseMillis());
	}

	LockSpec spec() {
		return this.spec;
	}

	String owner() {
		return this.owner;
	}

	/**
	 * Return what the acquisition won: the hold that this handle's commands name.
	 */
	public Grant grant() {
		return this.grant;
	}

	long nextRenewalNanos() {
		return this.life.nextRenewalNanos();
	}

	long redisLeaseBoundNanos() {
		return this.redisLeaseBoundNanos;
	}

	boolean isLost() {
		return this.lost.get();
	}

	boolean isReleased() {
		return this.released.get();
	}

	/**
	 * Return whether this hold counts at the given time: neither released nor lost, and
	 * its lease not over by the local clock.
	 */
	boolean isLive(long nowNanos) {
		return !this.released.get() && !this.lost.get() && !this.life.isOver(nowNanos);
	}

	/**
	 * Note that a renewal of this hold is about to be sent; followed by one of
	 * {@link #renewed}, {@link #notRenewed} or {@link #renewalFailed}.
	 */
	public void renewing() {
		this.registry.sending(this.owner, this.spec.lockKey());
	}

	/**
	 * Record a renewal, measured from when the renew command was sent. Called after its
	 * reply, which may come after a later extension's: the lease end only moves later
	 * ({@link HoldLife}).
	 */
	public void renewed(long sentNanos) {
		this.life.renewed(sentNanos);
		boundAtLeast(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.spec.leaseMillis()));
		this.registry.replied(this, this.spec.leaseMillis());
	}

	/**
	 * Record a renewal whose reply said the hold is gone or taken, before marking it
	 * lost.
	 */
	void notRenewed() {
		this.registry.replied(this, -1);
	}

	private void boundAtLeast(long bound) {
		// Never earlier: a reply may come after a later one, and another hold of this
		// owner may rely on the longer lease.
		if (bound - this.redisLeaseBoundNanos > 0) {
			this.redisLeaseBoundNanos = bound;
		}
	}

	/**
	 * Record a renewal that got no answer, which Redis may still run
	 * ({@link HoldLife#renewalFailed}).
	 * @return whether the hold is lost: its lease is over by the local clock
	 */
	boolean renewalFailed(long nowNanos) {
		this.registry.failed(this);
		return this.life.renewalFailed(nowNanos);
	}

	/**
	 * Mark this hold as lost: its lease ended or someone else has the lock.
	 * @param goneFromRedis whether Redis said the hold is not there any more, rather than
	 * the renewals failing until its lease would have ended
	 */
	void markLost(boolean goneFromRedis) {
		if (this.lost.compareAndSet(false, true)) {
			this.registry.lost(this, goneFromRedis);
			this.lostSignal.complete(null);
		}
	}

	@Override
	public CompletionStage<Void> whenLost() {
		return this.lostSignal.minimalCompletionStage();
	}

	@Override
	public LockName name() {
		return this.spec.name();
	}

	@Override
	public long fencingToken() {
		return this.token;
	}

	@Override
	public boolean waited() {
		return this.waited;
	}

	@Override
	public Duration waitedFor() {
		return this.waitedFor;
	}

	@Override
	public int attempts() {
		return this.attempts;
	}

	@Override
	public Duration remainingLease() {
		if (this.released.get() || this.lost.get()) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(this.life.remainingNanos(System.nanoTime()));
	}

	@Override
	public boolean isHeld() {
		if (this.released.get() || this.lost.get()) {
			return false;
		}
		return this.commands.isHeld(this.grant);
	}

	@Override
	public void extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		if (!LockRequest.isValidLease(lease)) {
			throw new IllegalArgumentException("Lock '" + this.spec.name() + "': lease must be between 1 ms and "
					+ LockRequest.MAX_LEASE.toDays() + " days, but was " + lease);
		}
		long leaseMillis = lease.toMillis();
		if (this.released.get()) {
			throw new LockLeaseLostException(this.spec.name(), this.token, "extended after it was released");
		}
		long sentNanos = System.nanoTime();
		this.registry.sending(this.owner, this.spec.lockKey());
		long result;
		try {
			result = this.commands.extend(this.grant, leaseMillis);
		}
		catch (RuntimeException ex) {
			this.registry.failed(this);
			throw ex;
		}
		if (result < 0) {
			this.registry.replied(this, -1);
			markLost(true);
			throw new LockLeaseLostException(this.spec.name(), this.token, lostReason("extended", result));
		}
		this.life.extended(sentNanos, leaseMillis);
		boundAtLeast(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
		// Registers it again if a sweep dropped it while its lease was over.
		this.registry.replied(this, leaseMillis);
	}

	@Override
	public void close() {
		if (!this.released.compareAndSet(false, true)) {
			return;
		}
		long result = UNKNOWN;
		try {
			long keepMillis = this.life.minimumHoldLeftMillis(System.nanoTime());
			result = this.commands.release(this.grant, keepMillis);
		}
		catch (LockAccessException ex) {
			this.registry.releaseFailed(this, ex);
			throw ex;
		}
		finally {
			this.registry.released(this, result);
		}
		if (result < 0) {
			markLost(true);
			throw new LockLeaseLostException(this.spec.name(), this.token, lostReason("released", result));
		}
		this.registry.releasedFor(this, Duration.ofNanos(this.life.heldNanos(System.nanoTime())));
	}

	/**
	 * Return a snapshot for operators.
	 */
	HeldLock snapshot() {
		return new HeldLock(this.spec.name(), this.thread, this.since, remainingLease(), this.token,
				this.spec.origin());
	}

	private static String lostReason(String operation, long result) {
		return (result == -1) ? operation + " after the lock had already expired"
				: operation + " after another owner had taken the lock";
	}

	@Override
	public String toString() {
		return "LockHandle[" + this.spec.name() + ", token=" + this.token + "]";
	}

}
