package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one template: turns what a wait loop won into a handle (after the replica
 * check, if any), registers it with the watchdog, tells the listeners, and keeps, per owner
 * and lock, the handles that tell a real re-entry from a hold left by a lost reply.
 * <p>
 * A hold nobody closes leaves on its own: a hold whose lease is over, or that was lost, is
 * dropped when the holds are read and by a sweep that runs every second while there are
 * any (on the watchdog's thread), so an abandoned handle is never kept reachable.
 * <p>
 * Dropping a hold must not turn a hold left by a lost reply into a re-entry, nor a re-entry
 * into a take-over. The acquire script counts a second hold of an owner only when the caller
 * says it holds one ({@link #holdsLocally}); otherwise it takes the lock over as one fresh
 * hold with the same token, which the old handle's release would then end. So an owner and
 * lock keep counting for as long as Redis may still keep a hold of them: up to the reply of
 * the last write that set the lease (acquire, renewal, extension or replica check) plus that
 * lease, since Redis set it before replying. Holds of one owner share the lock's lease, so
 * the bound of a dropped hold, and of a released one that left holds behind, is kept for the
 * owner and lock. Past that bound Redis no longer has the hold, an owner match there is
 * impossible, and a new attempt gets a new token, so closing the old handle later just
 * reports the lost lease. Thread-safe.
 */
final class HoldRegistry implements AutoCloseable {

	private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ConcurrentHashMap<String, Holds> holds = new ConcurrentHashMap<>();

	private final LockCommands commands;

	private final LeaseWatchdog watchdog;

	private final LockListener listener;

	private final @Nullable ReplicaWait replicas;

	private final AtomicBoolean sweepScheduled = new AtomicBoolean();

	/**
	 * @param replicas the replica check every new hold passes, or {@code null} for none
	 */
	HoldRegistry(LockCommands commands, LeaseWatchdog watchdog, LockListener listener,
			@Nullable ReplicaWait replicas) {
		this.commands = commands;
		this.watchdog = watchdog;
		this.listener = listener;
		this.replicas = replicas;
	}

	/**
	 * Turn what an acquisition won into a registered handle.
	 * @throws io.github.distributedlock.LockAccessException if too few replicas acknowledged
	 * the hold, which is then released
	 */
	RedisLockHandle hold(Grant grant) {
		if (this.replicas != null) {
			this.replicas.confirm(grant.spec(), grant.owner(), grant.token(), grant.sentNanos());
		}
		RedisLockHandle handle = new RedisLockHandle(grant, this, this.commands);
		add(handle);
		if (handle.spec().autoRenew()) {
			this.watchdog.watch(handle);
		}
		this.listener.acquired(handle);
		return handle;
	}

	/**
	 * Turn what a multi-lock won into registered handles, all or none: if one fails the
	 * replica check, the others are released too.
	 */
	List<RedisLockHandle> holdAll(List<Grant> grants) {
		List<RedisLockHandle> handles = new ArrayList<>(grants.size());
		for (int i = 0; i < grants.size(); i++) {
			try {
				handles.add(hold(grants.get(i)));
			}
			catch (RuntimeException ex) {
				for (Grant left : grants.subList(i + 1, grants.size())) {
					try {
						this.commands.release(left.spec(), left.owner(), left.token());
					}
					catch (RuntimeException releaseFailure) {
						ex.addSuppressed(releaseFailure);
					}
				}
				try {
					MultiLockHandle.releaseAll(handles);
				}
				catch (RuntimeException releaseFailure) {
					ex.addSuppressed(releaseFailure);
				}
				throw ex;
			}
		}
		return handles;
	}

	/**
	 * Register a hold found in Redis, which is neither renewed nor reported as acquired.
	 */
	RedisLockHandle adopt(Grant grant) {
		RedisLockHandle handle = new RedisLockHandle(grant, this, this.commands);
		add(handle);
		return handle;
	}

	private void add(RedisLockHandle handle) {
		this.holds.compute(key(handle), (key, current) -> (current != null) ? current.with(handle)
				: new Holds(List.of(handle), false, 0));
		sweepSoon();
	}

	/**
	 * Tell the listeners that an acquisition ran out of time.
	 */
	void notAcquired(LockName name, Duration waited) {
		this.listener.notAcquired(name, waited);
	}

	/**
	 * Return whether the owner may hold the lock through a handle of this template. A custom
	 * owner may also hold it elsewhere, so for those the answer is always yes.
	 */
	boolean holdsLocally(String owner, String lockKey) {
		if (LockOwners.isCustom(owner)) {
			return true;
		}
		Holds current = this.holds.get(key(owner, lockKey));
		return current != null && current.mayBeInRedis(System.nanoTime());
	}

	/**
	 * Drop a handle whose release was sent.
	 * @param result the release script's reply, or {@link RedisLockHandle#UNKNOWN}
	 */
	void released(RedisLockHandle handle, long result) {
		this.holds.computeIfPresent(key(handle), (key, current) -> {
			Holds left = current.without(handle);
			if (result == 0 || result == -1) {
				// Redis has no hold of this owner on the lock any more.
				left = left.withoutBound();
			}
			else if (result != -2) {
				// Holds of this owner are left (or may be): they live as long as the lease.
				left = left.bound(handle.redisLeaseBoundNanos());
			}
			return left.orNull(System.nanoTime());
		});
		this.watchdog.unwatch(handle);
	}

	void releasedFor(RedisLockHandle handle, Duration heldFor) {
		this.listener.released(handle, heldFor);
	}

	/**
	 * Drop a lost hold and tell the listeners.
	 * @param goneFromRedis whether Redis said the hold is gone (rather than renewals failing)
	 */
	void lost(RedisLockHandle handle, boolean goneFromRedis) {
		this.watchdog.unwatch(handle);
		this.holds.computeIfPresent(key(handle), (key, current) -> {
			Holds left = current.without(handle);
			return (goneFromRedis ? left : left.bound(handle.redisLeaseBoundNanos())).orNull(System.nanoTime());
		});
		this.listener.leaseLost(handle);
	}

	/**
	 * Forget a handle as if it had never been returned, like one whose reply was lost.
	 */
	void forget(RedisLockHandle handle) {
		this.holds.computeIfPresent(key(handle), (key, current) -> current.without(handle).orNull(System.nanoTime()));
		this.watchdog.unwatch(handle);
	}

	/**
	 * Return a snapshot of the live holds, oldest first.
	 */
	List<HeldLock> snapshot() {
		sweep();
		long now = System.nanoTime();
		List<HeldLock> snapshot = new ArrayList<>();
		for (Holds current : this.holds.values()) {
			for (RedisLockHandle handle : current.handles()) {
				if (handle.isLive(now)) {
					snapshot.add(handle.snapshot());
				}
			}
		}
		snapshot.sort(Comparator.comparing(HeldLock::since));
		return snapshot;
	}

	/**
	 * Return how many owner and lock pairs count as held, for tests.
	 */
	int size() {
		return this.holds.size();
	}

	/**
	 * Drop the holds whose lease is over or that were lost, keeping their owner and lock
	 * counted for as long as Redis may keep them.
	 */
	void sweep() {
		for (String key : this.holds.keySet()) {
			this.holds.computeIfPresent(key, (k, current) -> current.swept(System.nanoTime(), this.watchdog));
		}
	}

	private void sweepSoon() {
		if (this.sweepScheduled.compareAndSet(false, true)
				&& !this.watchdog.runLater(this::scheduledSweep, SWEEP_NANOS)) {
			this.sweepScheduled.set(false);
		}
	}

	private void scheduledSweep() {
		this.sweepScheduled.set(false);
		sweep();
		if (!this.holds.isEmpty()) {
			sweepSoon();
		}
	}

	@Override
	public void close() {
		this.watchdog.close();
	}

	private static String key(RedisLockHandle handle) {
		return key(handle.owner(), handle.spec().lockKey());
	}

	private static String key(String owner, String lockKey) {
		return owner + '\n' + lockKey;
	}

	/**
	 * The handles of one owner on one lock, and how long dropped ones may still be in Redis.
	 *
	 * @param handles the handles not dropped
	 * @param bounded whether dropped holds may still be in Redis
	 * @param boundNanos until when they may be, at the latest
	 */
	private record Holds(List<RedisLockHandle> handles, boolean bounded, long boundNanos) {

		Holds with(RedisLockHandle handle) {
			List<RedisLockHandle> more = new ArrayList<>(this.handles.size() + 1);
			more.addAll(this.handles);
			more.add(handle);
			return new Holds(List.copyOf(more), this.bounded, this.boundNanos);
		}

		Holds without(RedisLockHandle handle) {
			if (!this.handles.contains(handle)) {
				return this;
			}
			List<RedisLockHandle> fewer = new ArrayList<>(this.handles);
			fewer.remove(handle);
			return new Holds(List.copyOf(fewer), this.bounded, this.boundNanos);
		}

		Holds bound(long nanos) {
			if (this.bounded && this.boundNanos - nanos >= 0) {
				return this;
			}
			return new Holds(this.handles, true, nanos);
		}

		Holds withoutBound() {
			return new Holds(this.handles, false, 0);
		}

		boolean mayBeInRedis(long now) {
			if (this.bounded && this.boundNanos - now > 0) {
				return true;
			}
			for (RedisLockHandle handle : this.handles) {
				if (handle.redisLeaseBoundNanos() - now > 0) {
					return true;
				}
			}
			return false;
		}

		@Nullable Holds orNull(long now) {
			return (this.handles.isEmpty() && !(this.bounded && this.boundNanos - now > 0)) ? null : this;
		}

		/**
		 * Drop the lost holds and those whose lease is over; the watchdog decides for the
		 * holds it still renews.
		 */
		@Nullable Holds swept(long now, LeaseWatchdog watchdog) {
			Holds left = this;
			for (RedisLockHandle handle : this.handles) {
				if (!handle.isLive(now) && (handle.isLost() || !watchdog.watches(handle))) {
					left = left.without(handle).bound(handle.redisLeaseBoundNanos());
				}
			}
			return left.orNull(now);
		}

	}

}
