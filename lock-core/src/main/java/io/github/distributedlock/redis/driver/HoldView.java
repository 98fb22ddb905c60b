package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;

/**
 * What a handle of either template tells of its holds without asking Redis. A handle of
 * one lock has one hold; a multi-lock's has one per lock.
 */
public abstract class HoldView {

	/**
	 * Return the holds, never empty: first the one that names the handle.
	 */
	protected abstract List<LockHold> holds();

	public LockName name() {
		return holds().get(0).name();
	}

	public long fencingToken() {
		return holds().get(0).grant().shownToken();
	}

	public boolean waited() {
		return holds().stream().anyMatch((hold) -> hold.grant().waited());
	}

	/**
	 * Return how long the first hold's acquisition took; a multi-lock's handle tells the
	 * whole acquisition's.
	 */
	public Duration waitedFor() {
		return holds().get(0).grant().waitedFor();
	}

	public int attempts() {
		return holds().stream().mapToInt((hold) -> hold.grant().attempts()).sum();
	}

	public Duration remainingLease() {
		long now = System.nanoTime();
		return holds().stream().map((hold) -> hold.remainingLease(now)).min(Duration::compareTo).orElseThrow();
	}

	/**
	 * Return a lease to extend the holds to, in milliseconds.
	 * @throws IllegalArgumentException if it is not one a request may have
	 */
	protected long leaseMillis(Duration lease) {
		if (!LockRequest.isValidLease(lease)) {
			throw new IllegalArgumentException("Lock '" + name() + "': lease must be between 1 ms and "
					+ LockRequest.MAX_LEASE.toDays() + " days, but was " + lease);
		}
		return lease.toMillis();
	}

}
