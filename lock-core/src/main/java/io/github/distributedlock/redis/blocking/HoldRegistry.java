package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.CohortRelease;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.OwnerHolds;
import io.github.distributedlock.redis.driver.Renewals;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one template: turns what an acquisition won into a handle (after the
 * replica check, if any), registers it with the watchdog, tells the listeners, and keeps
 * per owner and lock the handles that tell a real re-entry from a hold left by a lost
 * reply. A hold whose lease is over, or that was lost, is dropped when the holds are read
 * and by a sweep every second, so an abandoned handle is never kept reachable.
 * <p>
 * Dropping must not turn a hold left by a lost reply into a re-entry, nor a re-entry into
 * a take-over: the acquire script counts a second hold only when the caller says it holds
 * one ({@link #holdsLocally}), and otherwise takes the lock over with the same token,
 * which an old handle's release would end. So an owner and lock stay counted while Redis
 * may keep a hold of them: while a command that may set their lease is in flight (an
 * acquire attempt while holding the lock, a replica check, an extension, a renewal, a
 * release that hands the lock to the owner); after one failed without a reply, until each
 * handle is closed (a leak, but only after such a failure); and until the latest, over
 * all replies, of the time a reply was read plus the lease it set (Redis set it before
 * replying). Holds of one owner share the lock's lease, so the bound of a dropped hold,
 * of a release that left holds behind, and of a refused re-entry is kept for the owner
 * and lock. The normal path costs no Redis command. Thread-safe.
 */
public final class HoldRegistry implements AutoCloseable {

	private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ConcurrentHashMap<String, OwnerHolds<RedisLockHandle>> holds = new ConcurrentHashMap<>();

	private final LockCommands commands;

	private final BlockingPort port;

	private final BlockingPort watchdog;

	private final Renewals renewals;

	private final boolean handOff;

	private final LockListener listener;

	private final @Nullable ReplicaWait replicas;

	private final AtomicBoolean sweepScheduled = new AtomicBoolean();

	private final CohortRelease cohorts;

	/**
	 * @param watchdog where renewals and sweeps run, apart from everything else, so that
	 * no wait for Redis on another thread delays them; closed with this registry
	 * @param replicas the replica check every new hold passes, or {@code null} for none
	 * @param cohorts the template's lines, which a cohort's holds pass to
	 */
	public HoldRegistry(LockCommands commands, BlockingPort port, BlockingPort watchdog, BooleanSupplier cluster,
			boolean handOff, LockListener listener, @Nullable ReplicaWait replicas, CohortRelease cohorts) {
		this.cohorts = cohorts;
		this.commands = commands;
		this.port = port;
		this.watchdog = watchdog;
		this.renewals = new Renewals(watchdog, cluster);
		this.handOff = handOff;
		this.listener = listener;
		this.replicas = replicas;
	}

	/**
	 * Turn what an acquisition won into a registered handle.
	 * @param call the bound of the acquisition's call, which the replica check keeps
	 * @throws io.github.distributedlock.LockAccessException if too few replicas
	 * acknowledged the hold, which is then released
	 */
	public RedisLockHandle hold(Grant grant, Deadline call) {
		confirmReplicas(grant, call);
		RedisLockHandle handle = taken(grant, Thread.currentThread().getName());
		replicasConfirmed(handle);
		announce(handle);
		return handle;
	}

	/**
	 * Register a lock of a multi-lock taken in order as soon as it is taken, so that it
	 * is renewed while the next is taken; the replica check and the listeners come once
	 * all are taken, on the caller's thread ({@link #confirmTaken}).
	 * @param thread the caller's thread, which the handle reports
	 */
	RedisLockHandle taken(Grant grant, String thread) {
		RedisLockHandle handle = new RedisLockHandle(grant, this, this.port, this.commands, this.handOff, this.cohorts,
				thread);
		if (handle.spec().autoRenew()) {
			// Watched before added, so that no sweep can drop it in between.
			this.renewals.watch(handle.hold());
		}
		add(handle);
		return handle;
	}

	/**
	 * Check the replicas of a multi-lock's locks {@link #taken} in order, and tell the
	 * listeners; if one fails the check, none is returned: each is forgotten, as if never
	 * held (no listener hears of it), and released by its grant on the background thread,
	 * as {@link #holdAll} releases the grants it did not hold.
	 */
	void confirmTaken(List<RedisLockHandle> handles, Deadline call) {
		for (RedisLockHandle handle : handles) {
			try {
				confirmReplicas(handle.grant(), call);
			}
			catch (RuntimeException ex) {
				for (RedisLockHandle taken : handles) {
					forget(taken);
					// A re-entry among them leaves its lease behind.
					long bound = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(taken.spec().leaseMillis());
					update(key(taken), (current) -> current.bound(bound));
				}
				this.port.execute(() -> {
					for (RedisLockHandle taken : handles) {
						try {
							this.commands.release(taken.grant());
						}
						catch (RuntimeException releaseFailure) {
							// Its lease ends it.
						}
					}
				});
				throw ex;
			}
			replicasConfirmed(handle);
		}
		handles.forEach(this::announce);
	}

	/**
	 * Tell the listeners of a hold returned to its caller; only such a hold's release or
	 * loss is told to them (a lock of a multi-lock released before the caller got it is
	 * not).
	 */
	private void announce(RedisLockHandle handle) {
		handle.announced();
		this.listener.acquired(handle);
	}

	/**
	 * Wait until enough replicas have the hold, if the template asks for replica
	 * acknowledgements.
	 * @throws LockAccessException if they don't (the hold is then released)
	 */
	private void confirmReplicas(Grant grant, Deadline call) {
		if (this.replicas == null) {
			return;
		}
		String key = key(grant.owner(), grant.spec().lockKey());
		// The check writes the lease again, and a refused re-entry leaves it behind.
		update(key, OwnerHolds::sending);
		try {
			this.replicas.confirm(grant, call);
		}
		catch (RuntimeException ex) {
			// A refusal is a reply (no cause); a failed check may have lost one.
			long now = System.nanoTime();
			boolean refused = ex instanceof LockAccessException && ex.getCause() == null;
			update(key, (current) -> refused ? current.replied(grant.spec().leaseMillis(), now) : current.failed());
			throw ex;
		}
	}

	private void replicasConfirmed(RedisLockHandle handle) {
		if (this.replicas != null) {
			long now = System.nanoTime();
			update(key(handle), (current) -> current.replied(-1, now));
		}
	}

	/**
	 * Turn what a multi-lock won into registered handles, all or none: if one fails the
	 * replica check, the others are released too, on the background thread, so that the
	 * call still ends within its bound.
	 */
	List<RedisLockHandle> holdAll(List<Grant> grants, Deadline call) {
		List<RedisLockHandle> handles = new ArrayList<>(grants.size());
		for (int i = 0; i < grants.size(); i++) {
			try {
				handles.add(hold(grants.get(i), call));
			}
			catch (RuntimeException ex) {
				List<Grant> left = grants.subList(i + 1, grants.size());
				for (Grant grant : left) {
					// Released, but a re-entry among them leaves its lease behind.
					long bound = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(grant.spec().leaseMillis());
					update(key(grant.owner(), grant.spec().lockKey()), (current) -> current.bound(bound));
				}
				this.port.execute(() -> {
					for (Grant grant : left) {
						try {
							this.commands.release(grant);
						}
						catch (RuntimeException releaseFailure) {
							// Its lease ends it.
						}
					}
					try {
						MultiLockHandle.releaseAll(handles);
					}
					catch (RuntimeException releaseFailure) {
						// Their leases end them.
					}
				});
				throw ex;
			}
		}
		return handles;
	}

	/**
	 * Register a hold found in Redis, which is neither renewed nor reported as acquired;
	 * its end is reported.
	 */
	public RedisLockHandle adopt(Grant grant) {
		RedisLockHandle handle = new RedisLockHandle(grant, this, this.port, this.commands, this.handOff, this.cohorts,
				Thread.currentThread().getName());
		handle.announced();
		add(handle);
		return handle;
	}

	private void add(RedisLockHandle handle) {
		update(key(handle), (current) -> current.held(handle));
	}

	/**
	 * Note that a command that may set this owner's lease on this lock (an acquire
	 * attempt while holding it, a renewal, an extension) is about to be sent: the owner
	 * counts as holding the lock until its reply. Each call is followed by one of
	 * {@link #attempted}, {@link #replied} or {@link #failed}.
	 */
	void sending(String owner, String lockKey) {
		update(key(owner, lockKey), OwnerHolds::sending);
	}

	/**
	 * Note the end of an attempt announced by {@link #sending}.
	 * @param result its reply, or {@code null} if none came
	 */
	void attempted(String owner, LockSpec spec, @Nullable AcquireResult result) {
		long now = System.nanoTime();
		update(key(owner, spec.lockKey()), (current) -> current.attempted(spec, result, now));
	}

	/**
	 * Note the reply of a command announced by {@link #sending}; a live handle that a
	 * sweep dropped meanwhile is registered again.
	 * @param leaseMillis the lease it set, or a negative value if it set none
	 */
	void replied(RedisLockHandle handle, long leaseMillis) {
		long now = System.nanoTime();
		update(key(handle), (current) -> current.replied(handle, leaseMillis, now));
	}

	/**
	 * Note that a command failed without a reply: the handle is kept until it is closed.
	 */
	void failed(RedisLockHandle handle) {
		update(key(handle), (current) -> current.failed(handle));
	}

	private void update(String key, UnaryOperator<OwnerHolds<RedisLockHandle>> change) {
		this.holds.compute(key, (k, current) -> change.apply((current != null) ? current : OwnerHolds.none())
			.orNull(System.nanoTime()));
		sweepSoon();
	}

	public void notAcquired(LockName name, Duration waited) {
		this.listener.notAcquired(name, waited);
	}

	/**
	 * Return whether the owner may hold the lock through a handle of this template. A
	 * custom owner may also hold it elsewhere, so for those the answer is always yes.
	 */
	boolean holdsLocally(String owner, String lockKey) {
		if (LockOwners.isCustom(owner)) {
			return true;
		}
		OwnerHolds<RedisLockHandle> current = this.holds.get(key(owner, lockKey));
		return current != null && current.mayBeInRedis(System.nanoTime());
	}

	/**
	 * Drop a handle whose release was sent.
	 * @param result the release script's reply, or {@link LockHold#UNKNOWN}
	 */
	void released(RedisLockHandle handle, long result) {
		this.holds.computeIfPresent(key(handle),
				(key, current) -> current.released(handle, result).orNull(System.nanoTime()));
		this.renewals.unwatch(handle.hold());
	}

	void releasedFor(RedisLockHandle handle, Duration heldFor) {
		if (handle.isAnnounced()) {
			this.listener.released(handle, heldFor);
		}
	}

	void releaseFailed(RedisLockHandle handle, LockAccessException failure) {
		if (handle.isAnnounced()) {
			this.listener.releaseFailed(handle, failure);
		}
	}

	/**
	 * Drop a lost hold and tell the listeners.
	 * @param goneFromRedis whether Redis said it is gone, rather than renewals failing
	 */
	void lost(RedisLockHandle handle, boolean goneFromRedis) {
		this.renewals.unwatch(handle.hold());
		this.holds.computeIfPresent(key(handle),
				(key, current) -> current.lost(handle, goneFromRedis).orNull(System.nanoTime()));
		if (handle.isAnnounced()) {
			this.listener.leaseLost(handle);
		}
	}

	/**
	 * Forget a handle as if it had never been returned, like one whose reply was lost.
	 */
	public void forget(RedisLockHandle handle) {
		this.holds.computeIfPresent(key(handle), (key, current) -> current.forgotten(handle).orNull(System.nanoTime()));
		this.renewals.unwatch(handle.hold());
	}

	/**
	 * Return a snapshot of the live holds, oldest first.
	 */
	public List<HeldLock> snapshot() {
		sweep();
		long now = System.nanoTime();
		List<HeldLock> snapshot = new ArrayList<>();
		for (OwnerHolds<RedisLockHandle> current : this.holds.values()) {
			for (RedisLockHandle handle : current.handles()) {
				if (handle.hold().isLive(now)) {
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
	public int size() {
		return this.holds.size();
	}

	void sweep() {
		for (String key : this.holds.keySet()) {
			this.holds.computeIfPresent(key, (k, current) -> current.swept(System.nanoTime(), this.renewals));
		}
	}

	private void sweepSoon() {
		if (this.sweepScheduled.compareAndSet(false, true)) {
			this.watchdog.schedule(this::scheduledSweep, SWEEP_NANOS);
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
		if (this.replicas != null) {
			this.replicas.close();
		}
		this.renewals.close();
		this.watchdog.close();
	}

	private static String key(RedisLockHandle handle) {
		return key(handle.owner(), handle.spec().lockKey());
	}

	private static String key(String owner, String lockKey) {
		return owner + '\n' + lockKey;
	}

}
