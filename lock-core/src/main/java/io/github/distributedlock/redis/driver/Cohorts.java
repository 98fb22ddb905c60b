package io.github.distributedlock.redis.driver;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LeaseEnd;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * The cohorts of one template's locks, by lock key, and the losses their lines hear
 * (docs/design/cohorting.md). A lock's lines share its entry, whichever line opened
 * first. An acquisition that may open a cohort pins its lock ({@link #pin}) before its
 * opening attempt is sent, so that a loss heard between the send and the grant refuses
 * the cohort ({@link #open}). An entry lives only while pinned or open: a loss on a lock
 * nobody pinned costs one map lookup. Thread-safe.
 */
public final class Cohorts {

	private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();

	private final AtomicLong numbers = new AtomicLong();

	private final CohortLimits limits;

	private final LongFunction<String> owners;

	private final CohortStatistics statistics;

	private final Maker cohorts;

	/**
	 * @param owners the owner of the cohort of a number ({@code LockOwners#cohort})
	 */
	public Cohorts(CohortLimits limits, LongFunction<String> owners) {
		this(limits, owners, Cohort::new);
	}

	/**
	 * @param cohorts makes each cohort: {@code Cohort::new}, or in tests a cohort with a
	 * bug planted
	 */
	public Cohorts(CohortLimits limits, LongFunction<String> owners, Maker cohorts) {
		this.limits = limits;
		this.owners = owners;
		this.cohorts = cohorts;
		this.statistics = new CohortStatistics(limits);
	}

	/**
	 * Makes a cohort, with {@link Cohort}'s constructor's arguments.
	 */
	@FunctionalInterface
	public interface Maker {

		Cohort make(long number, String owner, long firstToken, int block, long openedNanos, long timeLimitNanos,
				LeaseEnd leaseEnd);

	}

	/** Return what the cohorts did, which their lines count too. */
	public CohortStatistics statistics() {
		return this.statistics;
	}

	/** Return the owner Redis records for the cohort an opening may open (rule 1). */
	public String owner(Opening opening) {
		return this.owners.apply(opening.number());
	}

	/**
	 * The scope of leader election's locks ({@code LeaderInitiator.LOCK_SCOPE}): never
	 * passed in memory, so that every term is a hold Redis granted, whose token the
	 * leader directory matches ({@code RedisLeaderDirectory}).
	 */
	static final String LEADER_SCOPE = "leader";

	/**
	 * Return whether an acquisition may open a cohort: a plain lock ({@code acquire.lua})
	 * whose waiters line up and listen (a polling line would hear no loss), a generated
	 * owner, more than one holder allowed, a lease at least
	 * {@link Cohort#LEASE_PER_TIME_LIMIT} times the time limit, and no leader's term
	 * ("Which acquisitions may take part").
	 * @param handOff whether the template lines waiters up
	 * @param owner the caller's own owner
	 * @param waitersBehind whether the caller heads a line with a waiter behind it
	 */
	public static boolean mayOpen(LockSpec spec, boolean handOff, String owner, CohortLimits limits,
			boolean waitersBehind) {
		return limits.isOn() && waitersBehind && handOff && spec.kind() == LockKind.EXCLUSIVE
				&& spec.waitMode().listens() && !LockOwners.isCustom(owner) && !spec.name().scope().equals(LEADER_SCOPE)
				&& TimeUnit.MILLISECONDS.toNanos(spec.leaseMillis()) / Cohort.LEASE_PER_TIME_LIMIT >= limits
					.timeNanos();
	}

	/**
	 * Pin a cohort for the head of a subscribed line to open, and have its acquisition
	 * carry the cohort's owner and block from the next attempt on, if it may open one
	 * (rule 1). Called with the acquisition's state lock.
	 * @param handOff whether the template lines waiters up
	 * @return the pin, settled by {@link #open(Opening, Grant, int, LocalLine, String)}
	 * or {@link #unpin}; or {@code null} if it opens none
	 */
	@Nullable Opening pinFor(LockSpec spec, boolean handOff, Acquisition acquisition, LocalLine joined) {
		// A line not yet subscribed may have missed a loss.
		if (!joined.isSubscribed()
				|| !mayOpen(spec, handOff, acquisition.owner(), this.limits, joined.hasWaitersBehind())) {
			return null;
		}
		Opening pinned = pin(spec.lockKey());
		if (acquisition.takeOwner(owner(pinned), this.limits.holders())) {
			return pinned;
		}
		unpin(pinned);
		return null;
	}

	/**
	 * Take a grant of a head's opening: open its cohort on the line before the grant
	 * completes, so that the head promoted next sleeps under it, unless Redis granted one
	 * token or a loss was heard since the pin (rules 1, 2 and 5). Called with the
	 * acquisition's state lock.
	 * @param caller the head's own owner, which the cohort names as its holder
	 * @return the grant, of the cohort if it opened
	 */
	Grant open(Opening pinned, Grant grant, int block, LocalLine joined, String caller) {
		Cohort cohort = open(pinned, grant.owner(), grant.token(), block, grant.sentNanos(), this.limits.timeNanos(),
				new LeaseEnd(grant.sentNanos(), grant.spec().leaseMillis()));
		if (cohort == null) {
			return grant;
		}
		// The lock's cohort even if it passes nothing: the holder's re-entries need its
		// owner.
		cohort.openedBy(caller, joined.id());
		if (!cohort.isEnded()) {
			joined.cohortOpened(cohort);
		}
		return grant.openedCohort(cohort);
	}

	/**
	 * Pin the lock for an opening attempt about to be sent, and number the cohort it may
	 * open.
	 */
	public Opening pin(String lockKey) {
		long number = this.numbers.incrementAndGet();
		Opening[] pinned = new Opening[1];
		this.locks.compute(lockKey, (key, existing) -> {
			Entry entry = (existing != null) ? existing : new Entry();
			entry.pins++;
			pinned[0] = new Opening(lockKey, number, entry.losses);
			return entry;
		});
		return pinned[0];
	}

	/**
	 * Open the cohort of an opening that Redis granted, and unpin it. It passes nothing
	 * if a line of the lock heard a loss since it was pinned or Redis granted one token;
	 * it is the lock's cohort either way, so that its holder's re-entries find their
	 * owner (rule 7). A cohort it replaces passes no more: Redis granted the lock, so
	 * that one's hold is gone.
	 * @return the cohort, or {@code null} if the opening settled already
	 */
	public @Nullable Cohort open(Opening opening, String owner, long firstToken, int block, long sentNanos,
			long timeLimitNanos, LeaseEnd leaseEnd) {
		if (!opening.settle()) {
			return null;
		}
		Cohort cohort = this.cohorts.make(opening.number(), owner, firstToken, block, sentNanos, timeLimitNanos,
				leaseEnd);
		this.locks.compute(opening.lockKey(), (key, existing) -> {
			Entry entry = (existing != null) ? existing : new Entry();
			if (entry.losses != opening.losses()) {
				cohort.lost();
			}
			else if (block < 2) {
				cohort.end();
			}
			replace(entry, cohort);
			entry.pins = Math.max(0, entry.pins - 1);
			return entry;
		});
		if (!cohort.isEnded()) {
			this.statistics.opened();
		}
		return cohort;
	}

	/**
	 * Make a hold its owner took again, under an ended cohort's owner, the lock's cohort:
	 * it passes nothing, but its holder's re-entries find their owner (rule 7).
	 * @return the cohort
	 */
	public Cohort adopt(String lockKey, String owner, long token, long sentNanos, LeaseEnd leaseEnd) {
		Cohort cohort = this.cohorts.make(this.numbers.incrementAndGet(), owner, token, 1, sentNanos, 0, leaseEnd);
		cohort.end();
		this.locks.compute(lockKey, (key, existing) -> {
			Entry entry = (existing != null) ? existing : new Entry();
			replace(entry, cohort);
			return entry;
		});
		return cohort;
	}

	/**
	 * Make a cohort the lock's, and stop the passes of the one it replaces: Redis granted
	 * the lock, so that one's hold is gone. Unless the lock's cohort is of a newer grant
	 * (a higher first token): then this grant's reply came after it, its hold is the one
	 * gone (rule 8), and it replaces nothing (seed 8309 of the cohort simulation: a
	 * re-entry's late reply took over the cohort of the lock's holder, whose own
	 * re-entries then went as itself).
	 */
	private static void replace(Entry entry, Cohort cohort) {
		Cohort replaced = entry.cohort;
		if (replaced != null && replaced.firstToken() > cohort.firstToken()) {
			cohort.lost();
			return;
		}
		if (replaced != null) {
			replaced.lost();
		}
		entry.cohort = cohort;
	}

	/** Drop the pin of an opening that got no grant; nothing if it settled already. */
	public void unpin(Opening opening) {
		if (!opening.settle()) {
			return;
		}
		this.locks.computeIfPresent(opening.lockKey(), (key, entry) -> unpinned(entry));
	}

	/** Return the lock's open cohort, if any. */
	public @Nullable Cohort current(String lockKey) {
		Entry entry = this.locks.get(lockKey);
		return (entry != null) ? entry.cohort : null;
	}

	/** Forget a cohort once it ended: its release answered, or its hold lost. */
	public void ended(String lockKey, Cohort cohort) {
		cohort.end();
		this.locks.computeIfPresent(lockKey, (key, entry) -> {
			if (entry.cohort == cohort) {
				entry.cohort = null;
			}
			return (entry.pins == 0 && entry.cohort == null) ? null : entry;
		});
	}

	/**
	 * A line of the lock heard that its hold may be gone without a release, or may have
	 * missed it: every pinned opening refuses its cohort, and the open one passes no
	 * more.
	 */
	void lost(String lockKey) {
		this.locks.computeIfPresent(lockKey, (key, entry) -> {
			entry.losses++;
			if (entry.cohort != null) {
				entry.cohort.lost();
			}
			return entry;
		});
	}

	private static @Nullable Entry unpinned(Entry entry) {
		entry.pins = Math.max(0, entry.pins - 1);
		return (entry.pins == 0 && entry.cohort == null) ? null : entry;
	}

	/**
	 * An opening attempt's pin on its lock, settled once: opened or unpinned.
	 */
	public static final class Opening {

		private final String lockKey;

		private final long number;

		// The losses the lock's lines had heard when it pinned.
		private final long losses;

		private final AtomicBoolean settled = new AtomicBoolean();

		Opening(String lockKey, long number, long losses) {
			this.lockKey = lockKey;
			this.number = number;
			this.losses = losses;
		}

		public String lockKey() {
			return this.lockKey;
		}

		/** Return the number of the cohort it may open, for its owner. */
		public long number() {
			return this.number;
		}

		long losses() {
			return this.losses;
		}

		private boolean settle() {
			return this.settled.compareAndSet(false, true);
		}

	}

	/**
	 * One lock's pins, losses and open cohort, changed only inside the map's compute; the
	 * cohort is read outside it too.
	 */
	private static final class Entry {

		int pins;

		long losses;

		volatile @Nullable Cohort cohort;

	}

}
