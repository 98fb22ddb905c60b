package io.github.distributedlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One hold of a distributed lock, released by {@link #close()}.
 * <p>
 * A handle is the capability to release and extend its hold: any thread that has it may
 * do so. Closing it twice is harmless. Use it with try-with-resources: <pre class="code">
 * try (LockHandle lock = lockTemplate.acquire(LockRequest.of("server_access", id))) {
 *     resource.write(data, lock.fencingToken());
 * }
 * </pre>
 */
public interface LockHandle extends LockContext, AutoCloseable {

	/**
	 * Return the individual holds: this handle itself, or for a multi-lock from
	 * {@link LockTemplate#acquireAll(java.util.List)} one hold per lock, in acquisition
	 * order.
	 * @return the holds
	 */
	default java.util.List<? extends LockContext> locks() {
		return java.util.List.of(this);
	}

	/**
	 * Lengthen the lease to last at least the given duration, counted from now. A lease
	 * that already lasts longer is kept: no extension, renewal or nested hold ever
	 * shortens a lease, so that the time {@link #remainingLease()} reports is always
	 * covered by the lock in Redis.
	 * @param lease the lease to have at least, positive
	 * @throws LockLeaseLostException if the lock is no longer ours
	 * @throws LockAccessException if Redis cannot be reached
	 */
	void extend(Duration lease);

	/**
	 * Return a stage that completes when this process finds the hold lost while it is
	 * held: a renewal by the watchdog or an {@link #extend(Duration) extension} found the
	 * lock expired or taken by another owner, or the renewals failed until the lease
	 * would have ended. A lease that is not renewed and simply runs out is not signalled
	 * here: {@link #remainingLease()} reaches zero then. A release that finds the hold
	 * lost completes it too; a hold released normally never does, and it never completes
	 * exceptionally. Dependent actions run on the thread that found the loss, which
	 * renews every lease of the template: they must be quick and must not block (use an
	 * {@code ...Async} method to run them elsewhere).
	 * @return a stage completed on loss
	 * @see LeaseLossPolicy
	 */
	default CompletionStage<Void> whenLost() {
		return new CompletableFuture<Void>().minimalCompletionStage();
	}

	/**
	 * Release this hold. For a reentrant lock held several times by the same owner, the
	 * lock is free once every hold is released. Closing an already closed handle does
	 * nothing.
	 * @throws LockLeaseLostException if the lease had run out or another owner had the
	 * lock: the protected work may have overlapped with another holder's
	 * @throws LockAccessException if Redis cannot be reached; the lock then ends with its
	 * lease
	 */
	@Override
	void close();

}
