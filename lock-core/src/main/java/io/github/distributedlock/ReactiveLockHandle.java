package io.github.distributedlock;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * One hold of a distributed lock taken by a {@link ReactiveLockTemplate}, released by
 * subscribing to {@link #release()}.
 * <p>
 * The hold belongs to the subscription that acquired it, not to a thread: whoever has the
 * handle may extend or release it, from any thread. Releasing twice is harmless.
 */
public interface ReactiveLockHandle extends ReactiveLockContext {

	/**
	 * Lengthen the lease to last at least the given duration, counted from when the
	 * command is sent. A lease that already lasts longer is kept: nothing ever shortens a
	 * lease (see {@link io.github.distributedlock.LockHandle#extend(Duration)}).
	 * @param lease the lease to have at least, positive
	 * @return completes when extended; errors with {@link LockLeaseLostException} if the
	 * lock is no longer ours, {@link LockAccessException} if Redis cannot be reached
	 */
	Mono<Void> extend(Duration lease);

	/**
	 * Return a {@code Mono} that completes, empty, when this process finds the hold lost
	 * while it is held: a renewal or an {@link #extend(Duration) extension} found the
	 * lock expired or taken by another owner, or the renewals failed until the lease
	 * would have ended. A lease that is not renewed and simply runs out is not signalled
	 * here: {@link #remainingLease()} reaches zero then. A release that finds the hold
	 * lost completes it too; a hold released normally never does, and it never errors.
	 * Subscribers are told on the thread that found the loss, a Reactor scheduler's,
	 * where nothing may block.
	 * @return completes on loss
	 * @see LeaseLossPolicy
	 */
	default Mono<Void> whenLost() {
		return Mono.never();
	}

	/**
	 * Release this hold and stop renewing its lease. Only the first subscription to any
	 * returned {@code Mono} sends the release; later ones complete at once.
	 * @return completes when released; errors with {@link LockLeaseLostException} if the
	 * lease had run out or another owner had the lock, {@link LockAccessException} if
	 * Redis cannot be reached (the lock then ends with its lease)
	 */
	Mono<Void> release();

}
