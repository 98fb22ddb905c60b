package io.github.distributedlock.redis;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the blocking engine's {@code HoldRegistry} knows of one thread owner's holds of
 * the simulation's lock, to pass as {@code holdsIt} to the owner's next acquisition: the
 * handles not closed, the lease-setting commands in flight, whether one failed without a
 * reply, and until when a hold of the owner may still be in Redis. A copy of the rules of
 * the blocking package's {@code OwnerHolds} (which is package-private, holds
 * {@code RedisLockHandle}s and reads {@code System.nanoTime()}), on the virtual clock,
 * with the calls its {@code HoldRegistry} gets from {@code LockAttempts} and from the
 * holds' {@code LockHold.Events}. Not the sweep: it drops only handles that
 * {@link #mayBeInRedis} would not count, and keeps their bound, so it changes no answer.
 * <p>
 * Custom owners need none of it: the engine counts them as holding always.
 */
final class ThreadOwnerHolds {

	// The handles not closed, each with the end of the lease Redis may keep for it.
	private final Map<Object, Long> handles = new IdentityHashMap<>();

	private int writing;

	private boolean unknown;

	private boolean bounded;

	private long boundNanos;

	// Whether a command of the owner lost its reply in this run.
	private boolean replyLost;

	/**
	 * A handle was made for a grant whose reply was read at {@code grantedNanos}
	 * ({@code HoldRegistry.hold}).
	 */
	void held(Object handle, long grantedNanos, long leaseMillis) {
		this.handles.put(handle, grantedNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
	}

	/**
	 * A command that may set the owner's lease is sent ({@code HoldRegistry.sending}).
	 */
	void sending() {
		this.writing++;
	}

	/**
	 * Its reply came at {@code nowNanos}, and set the given lease, or none if negative
	 * ({@code HoldRegistry.replied}); a handle's own bound moves with it
	 * ({@code RedisLockHandle.boundAtLeast}).
	 */
	void replied(@org.jspecify.annotations.Nullable Object handle, long leaseMillis, long nowNanos) {
		this.writing = Math.max(0, this.writing - 1);
		if (leaseMillis >= 0) {
			long bound = nowNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
			bound(bound);
			if (handle != null) {
				this.handles.computeIfPresent(handle, (key, old) -> (bound - old > 0) ? bound : old);
			}
		}
		orNone(nowNanos);
	}

	/**
	 * It failed without a reply: Redis may still run it ({@code HoldRegistry.failed}).
	 */
	void failed(long nowNanos) {
		this.replyLost = true;
		this.writing = Math.max(0, this.writing - 1);
		this.unknown = true;
		orNone(nowNanos);
	}

	/**
	 * A handle's release was sent, with its reply, or {@code RedisLockHandle.UNKNOWN}
	 * ({@link Long#MIN_VALUE}) if none came ({@code HoldRegistry.released}).
	 */
	void released(Object handle, long result, long nowNanos) {
		this.replyLost |= result == Long.MIN_VALUE;
		Long handleBound = this.handles.get(handle);
		without(handle);
		if (result == 0 || result == -1) {
			this.bounded = false;
			this.boundNanos = 0;
		}
		else if (result != -2 && handleBound != null) {
			bound(handleBound);
		}
		orNone(nowNanos);
	}

	/**
	 * A handle was lost ({@code HoldRegistry.lost}): Redis said it is gone, or its
	 * renewals failed until its lease ended.
	 */
	void lost(Object handle, boolean goneFromRedis, long nowNanos) {
		Long handleBound = this.handles.get(handle);
		if (this.writing == 0 && !this.unknown) {
			without(handle);
		}
		if (!goneFromRedis && handleBound != null) {
			bound(handleBound);
		}
		orNone(nowNanos);
	}

	/**
	 * Return whether a command of the owner lost its reply in this run.
	 */
	boolean lostAReply() {
		return this.replyLost;
	}

	/**
	 * Note that a command the registry was not told of lost its reply (an attempt of an
	 * owner that did not hold the lock).
	 */
	void replyLost() {
		this.replyLost = true;
	}

	/**
	 * Return what the engine passes as {@code holdsIt} to the owner's next acquisition,
	 * once a reply of the owner was lost; {@code false} before, as the simulation always
	 * passed. Before any reply is lost no hold of a thread owner is in Redis when it
	 * starts an acquisition (each released its holds and read the reply first), so the
	 * scripts would answer the same; the engine's answer may still be {@code true} then
	 * (a renewal's reply read after the release sets a bound), which would only change
	 * whether the first attempt joins the local line at once ({@code Waiting.begin}), and
	 * every run without lost replies would differ from the run it was.
	 */
	boolean holdsIt(long nowNanos) {
		return this.replyLost && mayBeInRedis(nowNanos);
	}

	/**
	 * Return whether Redis may keep a hold of the owner
	 * ({@code OwnerHolds.mayBeInRedis}).
	 */
	boolean mayBeInRedis(long nowNanos) {
		if (this.writing > 0 || (this.unknown && !this.handles.isEmpty())
				|| (this.bounded && this.boundNanos - nowNanos > 0)) {
			return true;
		}
		return this.handles.values().stream().anyMatch((bound) -> bound - nowNanos > 0);
	}

	private void without(Object handle) {
		if (this.handles.remove(handle) != null) {
			// Once every handle is closed, no late close can end a newer hold any more.
			this.unknown = this.unknown && (!this.handles.isEmpty() || this.writing > 0);
		}
	}

	private void bound(long nanos) {
		if (!this.bounded || nanos - this.boundNanos > 0) {
			this.bounded = true;
			this.boundNanos = nanos;
		}
	}

	// The registry forgets an owner with nothing left (OwnerHolds.orNull).
	private void orNone(long nowNanos) {
		if (this.handles.isEmpty() && this.writing == 0 && !(this.bounded && this.boundNanos - nowNanos > 0)) {
			this.unknown = false;
			this.bounded = false;
			this.boundNanos = 0;
		}
	}

}
