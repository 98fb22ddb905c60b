package io.github.distributedlock.inmemory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;

/**
 * One hold taken from an {@link InMemoryLockTemplate}.
 */
final class InMemoryLockHandle implements LockHandle {

	private final InMemoryLockTemplate template;

	private final InMemoryLockStore store;

	private final Claim claim;

	private final long token;

	private final boolean waited;

	private final Duration waitedFor;

	private final int attempts;

	private final long acquiredNanos = System.nanoTime();

	private final AtomicBoolean released = new AtomicBoolean();

	InMemoryLockHandle(InMemoryLockTemplate template, InMemoryLockStore store, Claim claim, long token, boolean waited,
			Duration waitedFor, int attempts) {
		this.template = template;
		this.store = store;
		this.claim = claim;
		this.token = token;
		this.waited = waited;
		this.waitedFor = waitedFor;
		this.attempts = attempts;
	}

	@Override
	public LockName name() {
		return this.claim.name();
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
		if (this.released.get()) {
			return Duration.ZERO;
		}
		return locked(() -> {
			long now = System.nanoTime();
			Hold hold = this.store.find(this.claim.kind(), name(), this.claim.owner(), this.token, now);
			return (hold != null) ? Duration.ofNanos(hold.lease.remaining(now)) : Duration.ZERO;
		});
	}

	@Override
	public boolean isHeld() {
		if (this.released.get()) {
			return false;
		}
		return locked(() -> this.store.find(this.claim.kind(), name(), this.claim.owner(), this.token,
				System.nanoTime()) != null);
	}

	@Override
	public void extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		if (!LockRequest.isValidLease(lease)) {
			throw new IllegalArgumentException("Lock '" + name() + "': lease must be between 1 ms and "
					+ LockRequest.MAX_LEASE.toDays() + " days, but was " + lease);
		}
		if (this.released.get()) {
			throw new LockLeaseLostException(name(), this.token, "extended after it was released");
		}
		boolean extended = locked(() -> this.store.extend(this.claim.kind(), name(), this.claim.owner(), this.token,
				lease.toNanos(), System.nanoTime()));
		if (!extended) {
			// Released meanwhile, on another thread: no lease of a closed handle is lost.
			if (this.released.get()) {
				throw new LockLeaseLostException(name(), this.token, "extended after it was released");
			}
			this.template.leaseLost(this);
			throw new LockLeaseLostException(name(), this.token,
					"extended after the lock had already expired or another owner had taken it");
		}
	}

	@Override
	public void close() {
		if (!this.released.compareAndSet(false, true)) {
			return;
		}
		boolean released = locked(() -> this.store.release(this.claim.kind(), name(), this.claim.owner(), this.token,
				System.nanoTime(), true));
		if (!released) {
			this.template.leaseLost(this);
			throw new LockLeaseLostException(name(), this.token,
					"released after the lock had already expired or another owner had taken it");
		}
		this.template.released(this, Duration.ofNanos(System.nanoTime() - this.acquiredNanos));
	}

	private <T> T locked(java.util.function.Supplier<T> action) {
		this.store.monitor().lock();
		try {
			return action.get();
		}
		finally {
			this.store.monitor().unlock();
		}
	}

	@Override
	public String toString() {
		return "LockHandle[" + name() + ", token=" + this.token + "]";
	}

}
