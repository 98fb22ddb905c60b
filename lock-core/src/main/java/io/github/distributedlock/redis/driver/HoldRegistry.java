package io.github.distributedlock.redis.driver;

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
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one template, for both templates: registers each handle
 * ({@link RegisteredHold}) with the watchdog ({@link Renewals}), tells the listeners, and
 * keeps per owner and lock the handles that tell a real re-entry from a hold left by a
 * lost reply ({@link OwnerHolds}). A hold whose lease is over, or that was lost, is
 * dropped when the holds are read and by a sweep every second, so an abandoned handle is
 * never kept reachable.
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
 * and lock. The normal path costs no Redis command. As the driver's attempt watch
 * ({@link DriverCommands.AttemptWatch}), it hears of the attempts that may set the lease
 * of a hold the owner has. Thread-safe.
 */
public final class HoldRegistry implements DriverCommands.AttemptWatch, AutoCloseable {

	private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ConcurrentHashMap<String, OwnerHolds<RegisteredHold>> holds = new ConcurrentHashMap<>();

	private final LockPort port;

	private final Renewals renewals;

	private final boolean handOff;

	private final LockListener listener;

	private final CohortRelease cohorts;

	private final AtomicBoolean sweepScheduled = new AtomicBoolean();

	private final HoldMaker holdMaker;

	/**
	 * @param port where renewals and sweeps run, and the clock the holds are read by
	 * @param cluster whether Redis is a Cluster, for the renewals
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 * @param cohorts the template's lines, which a cohort's holds pass to
	 */
	public HoldRegistry(LockPort port, BooleanSupplier cluster, boolean handOff, LockListener listener,
			CohortRelease cohorts) {
		this(port, cluster, handOff, listener, cohorts, LockHold::new);
	}

	/**
	 * @param holdMaker makes each handle's hold: the simulation's tests plant bugs into
	 * {@link LockHold} this way
	 */
	public HoldRegistry(LockPort port, BooleanSupplier cluster, boolean handOff, LockListener listener,
			CohortRelease cohorts, HoldMaker holdMaker) {
		this.port = port;
		this.renewals = new Renewals(port, cluster);
		this.handOff = handOff;
		this.listener = listener;
		this.cohorts = cohorts;
		this.holdMaker = holdMaker;
	}

	LockHold newHold(Grant grant, RegisteredHold handle) {
		return this.holdMaker.make(grant, this.port.nanoTime(), this.handOff, new Reports(handle), this.cohorts);
	}

	/**
	 * Register a new handle, renewed if its lock is; the listeners hear of it once it is
	 * {@linkplain #announce announced}.
	 */
	public <H extends RegisteredHold> H add(H handle) {
		if (handle.hold().spec().autoRenew()) {
			// Watched before added, so that no sweep can drop it in between.
			this.renewals.watch(handle.hold());
		}
		update(key(handle), (current) -> current.held(handle));
		return handle;
	}

	/**
	 * Tell the listeners of a hold returned to its caller; only such a hold's release or
	 * loss is told to them (a lock of a multi-lock released before the caller got it is
	 * not).
	 */
	public void announce(RegisteredHold handle) {
		handle.announce();
		this.listener.acquired(handle.listenedTo());
	}

	/**
	 * Register a hold found in Redis, which is neither renewed nor reported as acquired;
	 * its end is reported.
	 */
	public <H extends RegisteredHold> H adopt(H handle) {
		handle.announce();
		update(key(handle), (current) -> current.held(handle));
		return handle;
	}

	/**
	 * Note that a command that may set this owner's lease on this lock (an acquire
	 * attempt while holding it, a replica check, a renewal, an extension) is about to be
	 * sent: the owner counts as holding the lock until its reply. Each call is followed
	 * by one of {@link #replied}, {@link #failed} or {@link #ended}.
	 */
	public void sending(String owner, String lockKey) {
		update(key(owner, lockKey), OwnerHolds::sending);
	}

	/**
	 * Note the reply of a command announced by {@link #sending}.
	 * @param leaseMillis the lease it set, or a negative value if it set none
	 */
	public void replied(String owner, String lockKey, long leaseMillis) {
		long now = this.port.nanoTime();
		update(key(owner, lockKey), (current) -> current.replied(leaseMillis, now));
	}

	/**
	 * Note that a command announced by {@link #sending} failed without a reply.
	 */
	public void failed(String owner, String lockKey) {
		update(key(owner, lockKey), OwnerHolds::failed);
	}

	/**
	 * Note that a hold of the owner may be in Redis until its lease, set now, ends: one
	 * released without a reply that a caller waits for.
	 */
	public void leaseLeftBehind(Grant grant) {
		long bound = this.port.nanoTime() + TimeUnit.MILLISECONDS.toNanos(grant.spec().leaseMillis());
		update(key(grant.owner(), grant.spec().lockKey()), (current) -> current.bound(bound));
	}

	@Override
	public void sending(LockSpec spec, Acquisition.Attempt attempt) {
		if (OwnerHolds.writesLease(attempt)) {
			sending(attempt.owner(), spec.lockKey());
		}
	}

	@Override
	public void ended(LockSpec spec, Acquisition.Attempt attempt, @Nullable AcquireResult result) {
		if (OwnerHolds.writesLease(attempt)) {
			long now = this.port.nanoTime();
			update(key(attempt.owner(), spec.lockKey()), (current) -> current.attempted(spec, result, now));
		}
	}

	/**
	 * Return whether the owner may hold the lock through a handle of this template. A
	 * custom owner may also hold it elsewhere, so for those the answer is always yes.
	 */
	public boolean holdsLocally(String owner, String lockKey) {
		if (LockOwners.isCustom(owner)) {
			return true;
		}
		OwnerHolds<RegisteredHold> current = this.holds.get(key(owner, lockKey));
		return current != null && current.mayBeInRedis(this.port.nanoTime());
	}

	public void notAcquired(LockName name, Duration waited) {
		this.listener.notAcquired(name, waited);
	}

	/**
	 * Forget a handle as if it had never been returned, like one whose reply was lost.
	 */
	public void forget(RegisteredHold handle) {
		this.holds.computeIfPresent(key(handle),
				(key, current) -> current.forgotten(handle).orNull(this.port.nanoTime()));
		this.renewals.unwatch(handle.hold());
	}

	/**
	 * Return a snapshot of the live holds, oldest first.
	 */
	public List<HeldLock> snapshot() {
		sweep();
		long now = this.port.nanoTime();
		List<HeldLock> snapshot = new ArrayList<>();
		for (OwnerHolds<RegisteredHold> current : this.holds.values()) {
			for (RegisteredHold handle : current.handles()) {
				if (handle.hold().isLive(now)) {
					snapshot.add(handle.snapshot());
				}
			}
		}
		snapshot.sort(Comparator.comparing(HeldLock::since));
		return snapshot;
	}

	private void update(String key, UnaryOperator<OwnerHolds<RegisteredHold>> change) {
		this.holds.compute(key, (k, current) -> change.apply((current != null) ? current : OwnerHolds.none())
			.orNull(this.port.nanoTime()));
		sweepSoon();
	}

	private void sweep() {
		for (String key : this.holds.keySet()) {
			this.holds.computeIfPresent(key, (k, current) -> current.swept(this.port.nanoTime(), this.renewals));
		}
	}

	private void sweepSoon() {
		if (this.sweepScheduled.compareAndSet(false, true)) {
			this.port.schedule(this::scheduledSweep, SWEEP_NANOS);
		}
	}

	private void scheduledSweep() {
		this.sweepScheduled.set(false);
		sweep();
		if (!this.holds.isEmpty()) {
			sweepSoon();
		}
	}

	/**
	 * Stop renewing; the holds end with their leases unless released.
	 */
	@Override
	public void close() {
		this.renewals.close();
	}

	private static String key(RegisteredHold handle) {
		return key(handle.grant().owner(), handle.hold().spec().lockKey());
	}

	private static String key(String owner, String lockKey) {
		return owner + '\n' + lockKey;
	}

	/**
	 * What becomes of one handle's hold, kept in the registry and told to the listeners,
	 * then to the handle itself.
	 */
	private final class Reports implements LockHold.Events {

		private final RegisteredHold handle;

		Reports(RegisteredHold handle) {
			this.handle = handle;
		}

		@Override
		public void sending(LockHold hold) {
			HoldRegistry.this.sending(this.handle.grant().owner(), hold.spec().lockKey());
			this.handle.heard().sending(hold);
		}

		@Override
		public void replied(LockHold hold, long leaseMillis) {
			long now = HoldRegistry.this.port.nanoTime();
			// A live handle that a sweep dropped meanwhile is registered again.
			update(key(this.handle), (current) -> current.replied(this.handle, leaseMillis, now));
			this.handle.heard().replied(hold, leaseMillis);
		}

		@Override
		public void failed(LockHold hold) {
			// The handle is kept until it is closed.
			update(key(this.handle), (current) -> current.failed(this.handle));
			this.handle.heard().failed(hold);
		}

		@Override
		public void released(LockHold hold, long result) {
			HoldRegistry.this.holds.computeIfPresent(key(this.handle),
					(key, current) -> current.released(this.handle, result).orNull(HoldRegistry.this.port.nanoTime()));
			HoldRegistry.this.renewals.unwatch(hold);
			this.handle.heard().released(hold, result);
		}

		@Override
		public void releaseFailed(LockHold hold, LockAccessException failure) {
			if (this.handle.isAnnounced()) {
				HoldRegistry.this.listener.releaseFailed(this.handle.listenedTo(), failure);
			}
			this.handle.heard().releaseFailed(hold, failure);
		}

		@Override
		public void releasedAfter(LockHold hold, Duration heldFor) {
			if (this.handle.isAnnounced()) {
				HoldRegistry.this.listener.released(this.handle.listenedTo(), heldFor);
			}
			this.handle.heard().releasedAfter(hold, heldFor);
		}

		@Override
		public void lost(LockHold hold, boolean goneFromRedis) {
			HoldRegistry.this.renewals.unwatch(hold);
			HoldRegistry.this.holds.computeIfPresent(key(this.handle), (key,
					current) -> current.lost(this.handle, goneFromRedis).orNull(HoldRegistry.this.port.nanoTime()));
			if (this.handle.isAnnounced()) {
				HoldRegistry.this.listener.leaseLost(this.handle.listenedTo());
			}
			this.handle.lostSignal().complete(null);
			this.handle.heard().lost(hold, goneFromRedis);
		}

	}

	/**
	 * Makes the {@link LockHold} of a new handle, as its constructor does.
	 */
	@FunctionalInterface
	public interface HoldMaker {

		LockHold make(Grant grant, long grantedNanos, boolean handOff, LockHold.Events events, CohortRelease cohorts);

	}

}
