package io.github.distributedlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LeaseLossPolicy;
import io.github.distributedlock.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * One term: the hold of the role's lock, the clock-based test of whether it still leads,
 * and the leader-only sections running in it.
 * <p>
 * Only the election thread ends a term ({@link #awaitEnd()}, {@link #revoke()}); any
 * thread may ask it to end, enter a section or read it.
 */
final class LeaderTerm implements LeaderContext {

	private final String role;

	private final String instanceId;

	private final LockHandle handle;

	private final long marginNanos;

	private final Instant since = Instant.now();

	private final Set<LeaderSection> sections = new HashSet<>();

	// Guarded by this.
	private @Nullable RevokeReason requested;

	// Read without the lock: a loss the watchdog found ends the term for isLeader() at
	// once, before the election thread revokes it.
	private volatile boolean lost;

	private volatile boolean revoked;

	LeaderTerm(String role, String instanceId, LockHandle handle, Duration revokeMargin) {
		this.role = role;
		this.instanceId = instanceId;
		this.handle = handle;
		this.marginNanos = revokeMargin.toNanos();
		handle.whenLost().thenRun(this::markLost);
	}

	@Override
	public String role() {
		return this.role;
	}

	@Override
	public String instanceId() {
		return this.instanceId;
	}

	@Override
	public long fencingToken() {
		return this.handle.fencingToken();
	}

	@Override
	public Instant since() {
		return this.since;
	}

	@Override
	public boolean isLeader() {
		return !this.revoked && !this.lost && leaseLeftBeyondMargin() > 0;
	}

	@Override
	public Duration remainingLease() {
		return this.handle.remainingLease();
	}

	@Override
	public void yieldLeadership() {
		request(RevokeReason.YIELDED);
	}

	LockHandle handle() {
		return this.handle;
	}

	/**
	 * Ask the election thread to end the term; the first request wins.
	 */
	synchronized void request(RevokeReason reason) {
		if (this.requested == null) {
			this.requested = reason;
		}
		notifyAll();
	}

	private synchronized void markLost() {
		this.lost = true;
		notifyAll();
	}

	/**
	 * Wait, on the election thread, until the term must end, and say why. The lease left
	 * only grows with renewals, so sleeping until the margin of the current deadline and
	 * looking again is never late.
	 */
	synchronized RevokeReason awaitEnd() {
		while (true) {
			if (this.requested != null) {
				return this.requested;
			}
			if (this.lost) {
				return RevokeReason.LOST;
			}
			long left = leaseLeftBeyondMargin();
			if (left <= 0) {
				return RevokeReason.EXPIRING;
			}
			try {
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			catch (InterruptedException ex) {
				return RevokeReason.STOPPED;
			}
		}
	}

	/**
	 * End the term: no section enters from now on, and the sections that stop on
	 * revocation are returned to be interrupted.
	 */
	synchronized List<LeaderSection> revoke() {
		this.revoked = true;
		List<LeaderSection> interruptible = new ArrayList<>();
		for (LeaderSection section : this.sections) {
			if (section.policy() == LeaseLossPolicy.INTERRUPT) {
				interruptible.add(section);
			}
		}
		return interruptible;
	}

	/**
	 * Wait until every section has left, the lock is found lost, the lease is within the
	 * margin of its end, or the time is up.
	 * @return whether every section left
	 */
	synchronized boolean awaitSections(Duration timeout) {
		long end = System.nanoTime() + timeout.toNanos();
		while (!this.sections.isEmpty()) {
			long left = Math.min(end - System.nanoTime(), leaseLeftBeyondMargin());
			if (this.lost || left <= 0) {
				return false;
			}
			try {
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return true;
	}

	/**
	 * Enter a leader-only section on the calling thread, if the term still leads.
	 * @return the section, or {@code null} if this instance does not lead in this term
	 */
	synchronized @Nullable LeaderSection enter(LeaseLossPolicy policy) {
		if (!isLeader()) {
			return null;
		}
		LeaderSection section = new LeaderSection(this, policy);
		this.sections.add(section);
		return section;
	}

	synchronized void left(LeaderSection section) {
		this.sections.remove(section);
		notifyAll();
	}

	private long leaseLeftBeyondMargin() {
		return this.handle.remainingLease().toNanos() - this.marginNanos;
	}

	@Override
	public String toString() {
		return "LeaderTerm[role=" + this.role + ", instance=" + this.instanceId + ", token=" + fencingToken()
				+ ", since=" + this.since + "]";
	}

}
