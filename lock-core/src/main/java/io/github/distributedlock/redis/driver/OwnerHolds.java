package io.github.distributedlock.redis.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;

/**
 * What may keep a hold of one owner on one lock in Redis, as one process knows it. It
 * answers whether the owner's next acquisition says it holds the lock
 * ({@link #mayBeInRedis}), so that a re-entry is never taken for a hold left by a lost
 * reply, nor the reverse. Immutable: each event returns the holds after it.
 *
 * @param <H> the handles, each over one {@link LockHold}
 * @param writing how many lease-setting commands are in flight
 * @param unknown whether one failed without a reply, so that Redis may still set a lease
 * that nothing bounds: the handles are then kept until they are closed
 * @param bounded whether a bound was recorded
 * @param boundNanos until when a hold of the owner may be in Redis, if bounded
 */
public record OwnerHolds<H extends OwnerHolds.Handle>(List<H> handles, int writing, boolean unknown, boolean bounded,
		long boundNanos) {

	private static final OwnerHolds<?> NONE = new OwnerHolds<>(List.of(), 0, false, false, 0);

	@SuppressWarnings("unchecked")
	public static <H extends Handle> OwnerHolds<H> none() {
		return (OwnerHolds<H>) NONE;
	}

	/**
	 * Return whether an attempt may set the lease of a hold its owner has, a re-entry, so
	 * that the owner's holds must hear of it ({@link #sending}, then {@link #attempted}).
	 * A custom owner may hold the lock elsewhere, so it always says it holds the lock and
	 * is never counted.
	 */
	public static boolean writesLease(Acquisition.Attempt attempt) {
		return attempt.holdsIt() && !LockOwners.isCustom(attempt.owner());
	}

	public OwnerHolds<H> held(H handle) {
		if (this.handles.contains(handle)) {
			return this;
		}
		List<H> more = new ArrayList<>(this.handles.size() + 1);
		more.addAll(this.handles);
		more.add(handle);
		return new OwnerHolds<>(List.copyOf(more), this.writing, this.unknown, this.bounded, this.boundNanos);
	}

	/**
	 * Forget a handle as if it had never been returned, like one whose reply was lost.
	 */
	public OwnerHolds<H> forgotten(H handle) {
		if (!this.handles.contains(handle)) {
			return this;
		}
		List<H> fewer = new ArrayList<>(this.handles);
		fewer.remove(handle);
		// Once every handle is closed, no late close can end a newer hold any more.
		boolean stillUnknown = this.unknown && (!fewer.isEmpty() || this.writing > 0);
		return new OwnerHolds<>(List.copyOf(fewer), this.writing, stillUnknown, this.bounded, this.boundNanos);
	}

	/**
	 * Note that a hold of the owner may be in Redis until the given time.
	 */
	public OwnerHolds<H> bound(long nanos) {
		if (this.bounded && this.boundNanos - nanos >= 0) {
			return this;
		}
		return new OwnerHolds<>(this.handles, this.writing, this.unknown, true, nanos);
	}

	/**
	 * Note that a command that may set the owner's lease is about to be sent; followed by
	 * one of {@link #replied}, {@link #failed} or {@link #attempted}.
	 */
	public OwnerHolds<H> sending() {
		return new OwnerHolds<>(this.handles, this.writing + 1, this.unknown, this.bounded, this.boundNanos);
	}

	/**
	 * Note the reply of a command announced by {@link #sending}.
	 * @param leaseMillis the lease it set, or a negative value if it set none
	 * @param nowNanos when the reply was read: Redis set the lease before replying, so,
	 * counted from then, it has ended
	 */
	public OwnerHolds<H> replied(long leaseMillis, long nowNanos) {
		OwnerHolds<H> done = new OwnerHolds<>(this.handles, Math.max(0, this.writing - 1), this.unknown, this.bounded,
				this.boundNanos);
		return (leaseMillis >= 0) ? done.bound(nowNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis)) : done;
	}

	/**
	 * As {@link #replied(long, long)}; a live handle dropped meanwhile is added again.
	 */
	public OwnerHolds<H> replied(H handle, long leaseMillis, long nowNanos) {
		OwnerHolds<H> next = replied(leaseMillis, nowNanos);
		return handle.hold().isLive(nowNanos) ? next.held(handle) : next;
	}

	/**
	 * Note that a command announced by {@link #sending} got no reply, so Redis may still
	 * run it: the owner counts as holding the lock until all its handles are closed.
	 */
	public OwnerHolds<H> failed() {
		return new OwnerHolds<>(this.handles, Math.max(0, this.writing - 1), true, this.bounded, this.boundNanos);
	}

	/**
	 * As {@link #failed()}, keeping the handle until it is closed.
	 */
	public OwnerHolds<H> failed(H handle) {
		return handle.hold().isReleased() ? failed() : failed().held(handle);
	}

	/**
	 * Note the end of an attempt announced by {@link #sending} ({@link #writesLease}): a
	 * grant set the lease of the spec.
	 * @param result its reply, or {@code null} if none came
	 */
	public OwnerHolds<H> attempted(LockSpec spec, @Nullable AcquireResult result, long nowNanos) {
		if (result == null) {
			return failed();
		}
		return replied(result.acquired() ? spec.leaseMillis() : -1, nowNanos);
	}

	/**
	 * Drop a handle whose release was sent.
	 * @param result the release script's reply, or {@link LockHold#UNKNOWN}
	 */
	public OwnerHolds<H> released(H handle, long result) {
		OwnerHolds<H> left = forgotten(handle);
		if (result == 0 || result == -1) {
			// Redis has no hold of this owner on the lock any more.
			return new OwnerHolds<>(left.handles, left.writing, left.unknown, false, 0);
		}
		if (result != -2) {
			// Holds of this owner are left (or may be): they live as long as the lease.
			return left.bound(handle.hold().redisLeaseBoundNanos());
		}
		return left;
	}

	/**
	 * Drop a lost handle, unless a write is in flight or went unanswered.
	 * @param goneFromRedis whether Redis said the hold is gone; otherwise it may stay
	 * there until its bound
	 */
	public OwnerHolds<H> lost(H handle, boolean goneFromRedis) {
		OwnerHolds<H> left = mayDrop() ? forgotten(handle) : this;
		return goneFromRedis ? left : left.bound(handle.hold().redisLeaseBoundNanos());
	}

	/**
	 * Return whether Redis may keep a hold of the owner at the given time: what its next
	 * acquisition passes as {@code holdsIt}.
	 */
	public boolean mayBeInRedis(long nowNanos) {
		if (this.writing > 0 || (this.unknown && !this.handles.isEmpty())
				|| (this.bounded && this.boundNanos - nowNanos > 0)) {
			return true;
		}
		for (H handle : this.handles) {
			if (handle.hold().redisLeaseBoundNanos() - nowNanos > 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return these holds, or {@code null} once nothing is left: then forget the owner.
	 */
	public @Nullable OwnerHolds<H> orNull(long nowNanos) {
		boolean empty = this.handles.isEmpty() && this.writing == 0;
		return (empty && !(this.bounded && this.boundNanos - nowNanos > 0)) ? null : this;
	}

	/**
	 * Drop the lost holds and those whose lease is over; the watchdog decides for the
	 * holds it still renews. Nothing is dropped while a write is in flight or after one
	 * without a reply.
	 */
	public @Nullable OwnerHolds<H> swept(long nowNanos, Renewals watchdog) {
		if (!mayDrop()) {
			// With no handle left to close and nothing in flight, what went unanswered
			// keeps nothing: it counts only while a handle lives.
			return (this.writing == 0 && this.handles.isEmpty()) ? orNull(nowNanos) : this;
		}
		OwnerHolds<H> left = this;
		for (H handle : this.handles) {
			LockHold hold = handle.hold();
			if (!hold.isLive(nowNanos) && (hold.isLost() || !watchdog.watches(hold))) {
				left = left.lost(handle, false);
			}
		}
		return left.orNull(nowNanos);
	}

	private boolean mayDrop() {
		return this.writing == 0 && !this.unknown;
	}

	/**
	 * A handle of one hold, which these holds count.
	 */
	public interface Handle {

		LockHold hold();

	}

}
