package io.github.distributedlock.redis.blocking;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.driver.Renewals;
import org.jspecify.annotations.Nullable;

/**
 * The handles of one owner on one lock in a {@link HoldRegistry}, and what else may keep
 * a hold of that owner in Redis: lease-setting commands in flight, one that failed
 * without a reply, and the bound of the latest reply. Immutable.
 *
 * @param handles the handles not dropped
 * @param writing how many lease-setting commands are in flight
 * @param unknown whether one failed without a reply, so that Redis may still set a lease
 * that nothing bounds: the handles are then kept until they are closed
 * @param bounded whether a bound was recorded
 * @param boundNanos until when a hold of the owner may be in Redis, at the latest
 */
record OwnerHolds(List<RedisLockHandle> handles, int writing, boolean unknown, boolean bounded, long boundNanos) {

	private static final OwnerHolds NONE = new OwnerHolds(List.of(), 0, false, false, 0);

	static OwnerHolds none() {
		return NONE;
	}

	OwnerHolds with(RedisLockHandle handle) {
		if (this.handles.contains(handle)) {
			return this;
		}
		List<RedisLockHandle> more = new ArrayList<>(this.handles.size() + 1);
		more.addAll(this.handles);
		more.add(handle);
		return new OwnerHolds(List.copyOf(more), this.writing, this.unknown, this.bounded, this.boundNanos);
	}

	OwnerHolds without(RedisLockHandle handle) {
		if (!this.handles.contains(handle)) {
			return this;
		}
		List<RedisLockHandle> fewer = new ArrayList<>(this.handles);
		fewer.remove(handle);
		// Once every handle is closed, no late close can end a newer hold any more.
		boolean stillUnknown = this.unknown && (!fewer.isEmpty() || this.writing > 0);
		return new OwnerHolds(List.copyOf(fewer), this.writing, stillUnknown, this.bounded, this.boundNanos);
	}

	/**
	 * Drop a handle that is no longer live, unless the handles must be kept (a write in
	 * flight or one without a reply).
	 * @param mayStayInRedis whether its hold may stay in Redis until its bound
	 */
	OwnerHolds dropped(RedisLockHandle handle, boolean mayStayInRedis) {
		OwnerHolds left = mayDrop() ? without(handle) : this;
		return mayStayInRedis ? left.bound(handle.hold().redisLeaseBoundNanos()) : left;
	}

	OwnerHolds bound(long nanos) {
		if (this.bounded && this.boundNanos - nanos >= 0) {
			return this;
		}
		return new OwnerHolds(this.handles, this.writing, this.unknown, true, nanos);
	}

	OwnerHolds withoutBound() {
		return new OwnerHolds(this.handles, this.writing, this.unknown, false, 0);
	}

	/**
	 * Note that a lease-setting command is about to be sent.
	 */
	OwnerHolds sending() {
		return new OwnerHolds(this.handles, this.writing + 1, this.unknown, this.bounded, this.boundNanos);
	}

	/**
	 * Note the reply of a lease-setting command.
	 * @param setLease whether it set a lease
	 * @param boundNanos the time the reply was received plus the lease it set
	 */
	OwnerHolds replied(boolean setLease, long boundNanos) {
		OwnerHolds done = new OwnerHolds(this.handles, Math.max(0, this.writing - 1), this.unknown, this.bounded,
				this.boundNanos);
		return setLease ? done.bound(boundNanos) : done;
	}

	/**
	 * Note a lease-setting command that failed without a reply.
	 */
	OwnerHolds failed() {
		return new OwnerHolds(this.handles, Math.max(0, this.writing - 1), true, this.bounded, this.boundNanos);
	}

	/**
	 * Return whether Redis may keep a hold of the owner at the given time.
	 */
	boolean mayBeInRedis(long now) {
		if (this.writing > 0 || (this.unknown && !this.handles.isEmpty())
				|| (this.bounded && this.boundNanos - now > 0)) {
			return true;
		}
		for (RedisLockHandle handle : this.handles) {
			if (handle.hold().redisLeaseBoundNanos() - now > 0) {
				return true;
			}
		}
		return false;
	}

	private boolean mayDrop() {
		return this.writing == 0 && !this.unknown;
	}

	@Nullable OwnerHolds orNull(long now) {
		boolean empty = this.handles.isEmpty() && this.writing == 0;
		return (empty && !(this.bounded && this.boundNanos - now > 0)) ? null : this;
	}

	/**
	 * Drop the lost holds and those whose lease is over; the watchdog decides for the
	 * holds it still renews. Nothing is dropped while a write is in flight or after one
	 * without a reply.
	 */
	@Nullable OwnerHolds swept(long now, Renewals watchdog) {
		if (!mayDrop()) {
			return this;
		}
		OwnerHolds left = this;
		for (RedisLockHandle handle : this.handles) {
			if (!handle.isLive(now) && (handle.hold().isLost() || !watchdog.watches(handle.hold()))) {
				left = left.dropped(handle, true);
			}
		}
		return left.orNull(now);
	}

}
