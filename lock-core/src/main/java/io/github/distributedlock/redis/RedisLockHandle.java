package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;

/**
 * A hold of a lock in Redis: the owner and fencing token that the release and extend
 * scripts check.
 */
final class RedisLockHandle implements LockHandle {

	private final LockSpec spec;

	private final String owner;

	private final long token;

	private final boolean waited;

	private final Duration waitedFor;

	private final int attempts;

	private final RedisLockTemplate template;

	private final LockCommands commands;

	private final AtomicBoolean released = new AtomicBoolean();

	private final String thread = Thread.currentThread().getName();

	private final Instant since = Instant.now();

	private final long acquiredNanos;

	private volatile long leaseEndNanos;

	private volatile long nextRenewalNanos;

	private final AtomicBoolean lost = new AtomicBoolean();

	RedisLockHandle(LockSpec spec, String owner, long token, long sentNanos, boolean waited, Duration waitedFor,
			int attempts, RedisLockTemplate template, LockCommands commands) {
		this.spec = spec;
		this.owner = owner;
		this.token = token;
		this.waited = waited;
		this.waitedFor = waitedFor;
		this.attempts = attempts;
		this.template = template;
		this.commands = commands;
		this.acquiredNanos = System.nanoTime();
		this.leaseEndNanos = sentNanos + TimeUnit.MILLISECONDS.toNanos(spec.leaseMillis());
		this.nextRenewalNanos = sentNanos + renewalPeriodNanos();
	}

	LockSpec spec() {
		return this.spec;
	}

	String owner() {
		return this.owner;
	}

	long leaseEndNanos() {
		return this.leaseEndNanos;
	}

	long nextRenewalNanos() {
		return this.nextRenewalNanos;
	}

	private long renewalPeriodNanos() {
		return TimeUnit.MILLISECONDS.toNanos(this.spec.leaseMillis()) / 3;
	}

	/**
	 * Record a renewal, measured from when the renew command was sent.
	 */
	void renewed(long sentNanos) {
		this.leaseEndNanos = sentNanos + TimeUnit.MILLISECONDS.toNanos(this.spec.leaseMillis());
		this.nextRenewalNanos = sentNanos + renewalPeriodNanos();
	}

	void retryRenewalAt(long nanos) {
		this.nextRenewalNanos = nanos;
	}

	/**
	 * Mark this hold as lost: its lease ended or someone else has the lock.
	 */
	void markLost() {
		if (this.lost.compareAndSet(false, true)) {
			this.template.lost(this);
		}
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
		return Duration.ofNanos(Math.max(0, this.leaseEndNanos - System.nanoTime()));
	}

	@Override
	public boolean isHeld() {
		if (this.released.get() || this.lost.get()) {
			return false;
		}
		return this.commands.isHeld(this.spec, this.owner, this.token);
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
		long result = this.commands.extend(this.spec, this.owner, this.token, leaseMillis);
		if (result < 0) {
			markLost();
			throw new LockLeaseLostException(this.spec.name(), this.token, lostReason("extended", result));
		}
		this.leaseEndNanos = sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
	}

	@Override
	public void close() {
		if (!this.released.compareAndSet(false, true)) {
			return;
		}
		long result;
		try {
			result = this.commands.release(this.spec, this.owner, this.token);
		}
		finally {
			this.template.forget(this);
		}
		if (result < 0) {
			markLost();
			throw new LockLeaseLostException(this.spec.name(), this.token, lostReason("released", result));
		}
		this.template.released(this, Duration.ofNanos(System.nanoTime() - this.acquiredNanos));
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
