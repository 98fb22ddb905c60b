package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.github.distributedlock.chaos.FencedStore.StoreWrite;

/**
 * Checks a run's history: mutual exclusion, fencing, token order and liveness.
 * <p>
 * Times come from {@code System.nanoTime()} in several JVMs on one Linux machine, which
 * share the monotonic clock. A hold lasts from the moment its acquire returned to the
 * moment its holder invoked the release or died. Redis granted the lock somewhere between
 * the acquire's invocation and its return, so its lease ended at the latest one lease
 * after the return: only then is an overlap provably explained by an expired lease.
 */
final class HistoryChecker {

	/**
	 * The most a lock script spends between its start and its {@code TIME} call: a few
	 * in-memory commands.
	 */
	private static final long SCRIPT_START_TO_TIME_MICROS = 200;

	private final List<Hold> holds;

	private final List<StoreWrite> writes;

	private final List<Fault> faults;

	private final long marginNanos;

	private final List<String> dataLossOverlaps = new ArrayList<>();

	private final @org.jspecify.annotations.Nullable RedisMonitor monitor;

	HistoryChecker(List<Hold> holds, List<StoreWrite> writes, List<Fault> faults, Duration margin) {
		this(holds, writes, faults, margin, null);
	}

	/**
	 * @param monitor Redis's record of the expiries it set, to judge holds the watchdog
	 * renewed or a shared owner re-entered; without it, such holds only ever overlap
	 * others as violations
	 */
	HistoryChecker(List<Hold> holds, List<StoreWrite> writes, List<Fault> faults, Duration margin,
			@org.jspecify.annotations.Nullable RedisMonitor monitor) {
		this.holds = holds;
		this.writes = writes;
		this.faults = faults;
		this.marginNanos = margin.toNanos();
		this.monitor = monitor;
	}

	/**
	 * Check the holds and writes given to the constructor; the operation counts come from
	 * the history's events of the keys that match.
	 */
	CheckReport check(History history, java.util.function.Predicate<String> keys) {
		List<String> exclusion = new ArrayList<>();
		long[] overlaps = new long[4];
		byKey().forEach((key, list) -> checkExclusion(list, exclusion, overlaps));
		List<String> stale = new ArrayList<>();
		long rejected = checkFencing(stale);
		List<String> tokenOrder = new ArrayList<>();
		long[] ghostReentries = new long[1];
		byKey().forEach((key, list) -> checkTokenOrder(list, tokenOrder, ghostReentries));
		List<String> liveness = new ArrayList<>();
		Duration longestGhostChain = longestGhostChain();
		Map<String, Integer> counts = new LinkedHashMap<>();
		Map<String, List<Duration>> recoveries = new LinkedHashMap<>();
		for (Fault fault : this.faults) {
			counts.merge(fault.kind(), 1, Integer::sum);
			Duration recovery = recovery(fault, liveness);
			if (recovery != null) {
				recoveries.computeIfAbsent(fault.kind(), (kind) -> new ArrayList<>()).add(recovery);
			}
		}
		return new CheckReport(history.count((e) -> keys.test(e.key()) && e.is(Event.INVOKE, Event.ACQUIRE)),
				this.holds.size(), history.count((e) -> keys.test(e.key()) && e.is(Event.FAIL, Event.ACQUIRE)),
				history.count((e) -> keys.test(e.key()) && e.is(Event.INFO, Event.ACQUIRE)),
				history.count((e) -> keys.test(e.key()) && e.is(Event.FAIL, Event.RELEASE)), exclusion, overlaps[0],
				overlaps[2], overlaps[1], overlaps[3], this.writes.size(), rejected, stale, tokenOrder,
				ghostReentries[0], longestGhostChain, liveness, counts, recoveries);
	}

	/**
	 * Return the first overlaps that a fault losing data explains, to show what such a
	 * loss looks like.
	 */
	List<String> dataLossOverlaps() {
		return this.dataLossOverlaps;
	}

	private Map<String, List<Hold>> byKey() {
		Map<String, List<Hold>> byKey = this.holds.stream().collect(Collectors.groupingBy(Hold::key));
		byKey.values().forEach((list) -> list.sort(Comparator.comparingLong(Hold::okNanos)));
		return byKey;
	}

	private void checkExclusion(List<Hold> sorted, List<String> violations, long[] overlaps) {
		for (int i = 0; i < sorted.size(); i++) {
			Hold earlier = sorted.get(i);
			for (int j = i + 1; j < sorted.size() && sorted.get(j).okNanos() < earlier.endNanos(); j++) {
				Hold later = sorted.get(j);
				if (earlier.owner() != null && earlier.logicalOwner().equals(later.logicalOwner())) {
					// One custom owner in several processes or threads: one holder,
					// counted in Redis by design.
					overlaps[3]++;
				}
				else if (later.okNanos() >= latestLeaseEndNanos(earlier, later, sorted)) {
					overlaps[0]++;
				}
				else if (expiredByRedisClock(earlier, later) || expiredByMonitor(earlier, later, sorted)) {
					overlaps[2]++;
				}
				else if (spansDataLoss(earlier, later)) {
					overlaps[1]++;
					if (this.dataLossOverlaps.size() < 20) {
						this.dataLossOverlaps.add(earlier + " and " + later);
					}
				}
				else {
					violations.add("overlap: " + earlier + " and " + later + ", which began "
							+ millis(earlier.latestLeaseEndNanos() - later.okNanos())
							+ " ms before the earlier lease had certainly ended" + monitorRecord(earlier, later));
				}
			}
		}
	}

	/**
	 * Return whether Redis's own clock shows that one hold's lease had ended when the
	 * other was granted, in either order (a holder frozen between the grant and the reply
	 * reports its hold late). A token is the Redis server time in µs at which the script
	 * granted the lock (the counter only runs ahead of it if the clock goes back). Redis
	 * expires a key once its script-start time in whole ms is past grant ms + lease, so
	 * the later grant proves expiry when its ms, less
	 * {@link #SCRIPT_START_TO_TIME_MICROS} for the commands the script runs before asking
	 * the time, is past the earlier grant's ms + lease. Used where a reply reached its
	 * holder too late for the holders' clocks to tell.
	 */
	private static boolean expiredByRedisClock(Hold one, Hold other) {
		if (one.renewed() || other.renewed() || one.owner() != null || other.owner() != null) {
			// The watchdog or a re-entry by the shared owner may have moved the lease:
			// see expiredByMonitor.
			return false;
		}
		Hold first = (one.token() <= other.token()) ? one : other;
		Hold second = (first == one) ? other : one;
		long firstGrantMillis = first.token() / 1000;
		long secondGrantMillis = (second.token() - SCRIPT_START_TO_TIME_MICROS) / 1000;
		return secondGrantMillis > firstGrantMillis + first.leaseNanos() / 1_000_000;
	}

	/**
	 * Return the latest moment, by the holders' clocks, at which the earlier hold's lease
	 * can have ended when the later one was granted. Redis set it when it granted the
	 * lock, before the acquire returned; for a custom owner, each re-entry granted before
	 * the later hold's grant may have set it again, no earlier than it returned or the
	 * later hold was granted. A lease the watchdog renewed is not bounded by the holders'
	 * clocks.
	 */
	private static long latestLeaseEndNanos(Hold earlier, Hold later, List<Hold> sameKey) {
		if (earlier.renewed()) {
			return Long.MAX_VALUE;
		}
		long latest = earlier.latestLeaseEndNanos();
		if (earlier.owner() != null) {
			for (Hold other : sameKey) {
				if (other.logicalOwner().equals(earlier.logicalOwner()) && other.invokeNanos() < later.okNanos()
						&& other.okNanos() >= earlier.okNanos()) {
					if (other.renewed()) {
						return Long.MAX_VALUE;
					}
					latest = Math.max(latest, Math.min(other.okNanos(), later.okNanos()) + other.leaseNanos());
				}
			}
		}
		return latest;
	}

	/**
	 * Return whether Redis's record of the expiries it set shows that the hold with the
	 * lower token had lost its lock when the other was granted, or when a hold in between
	 * was: every expiry set on the key from the first grant until the next grant of
	 * another token (the first's, its renewals, re-entries of its owner) had ended before
	 * that grant's script started. A grant of another token ends the first hold for good:
	 * its renewals and re-entries need its owner and token in the hash, so the expiries
	 * set from then on (the next holder's, the reservations its release made) are not the
	 * first hold's.
	 * @param sameKey the holds of the key, to find the grants in between
	 */
	private boolean expiredByMonitor(Hold one, Hold other, List<Hold> sameKey) {
		if (this.monitor == null) {
			return false;
		}
		Hold first = (one.token() <= other.token()) ? one : other;
		Hold second = (first == one) ? other : one;
		long nextGrant = second.token();
		for (Hold hold : sameKey) {
			if (hold.token() > first.token() && hold.token() < nextGrant) {
				nextGrant = hold.token();
			}
		}
		long latest = this.monitor.latestExpiryMillis(RedisMonitor.lockKey(first.key()), first.token(), nextGrant);
		if (latest == Long.MIN_VALUE || latest == Long.MAX_VALUE) {
			return false;
		}
		return (nextGrant - SCRIPT_START_TO_TIME_MICROS) / 1000 > latest;
	}

	/**
	 * Return what Redis's record shows of the expiries set between two holds' grants, for
	 * a violation's report.
	 */
	private String monitorRecord(Hold one, Hold other) {
		if (this.monitor == null) {
			return "";
		}
		Hold first = (one.token() <= other.token()) ? one : other;
		Hold second = (first == one) ? other : one;
		return "; from the lower token's grant until the other's, "
				+ this.monitor.describe(RedisMonitor.lockKey(first.key()), first.token(), second.token());
	}

	/**
	 * Return whether one of two overlapping holds may have been granted before a fault
	 * that lost data, and the other after it began. Either may be the lost one: a grant
	 * that was lost can be reported after the other's.
	 */
	private boolean spansDataLoss(Hold one, Hold other) {
		long firstInvoked = Math.min(one.invokeNanos(), other.invokeNanos());
		long lastAcquired = Math.max(one.okNanos(), other.okNanos());
		for (Fault fault : this.faults) {
			if (fault.losesData() && firstInvoked < fault.endNanos() && lastAcquired > fault.startNanos()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Replay the store's decisions: a write is stale if the store had already accepted
	 * one from a hold that began after this write's hold had the lock. Such writes must
	 * all have been rejected.
	 * @return the number of writes the store rejected
	 */
	private long checkFencing(List<String> staleAccepted) {
		Map<String, Hold> byId = new HashMap<>();
		this.holds.forEach((hold) -> byId.put(hold.holdId(), hold));
		// Per key, per holder (a custom owner is one holder in every process), the latest
		// invoke of a hold whose
		// write was accepted: a holder's own holds never make each other stale.
		Map<String, Map<String, Long>> latestAcceptedInvoke = new HashMap<>();
		long rejected = 0;
		for (StoreWrite write : this.writes) {
			Hold hold = byId.get(write.holdId());
			if (hold == null) {
				throw new IllegalStateException("A write from an acquisition the history does not show: " + write);
			}
			if (!write.accepted()) {
				rejected++;
				continue;
			}
			Map<String, Long> byOwner = latestAcceptedInvoke.computeIfAbsent(write.key(), (key) -> new HashMap<>());
			long latest = byOwner.entrySet()
				.stream()
				.filter((entry) -> !entry.getKey().equals(hold.logicalOwner()))
				.mapToLong(Map.Entry::getValue)
				.max()
				.orElse(Long.MIN_VALUE);
			if (latest > hold.okNanos()) {
				staleAccepted.add("stale write accepted: " + write + " from " + hold
						+ " after a write from a hold that began later");
			}
			byOwner.merge(hold.logicalOwner(), hold.invokeNanos(), Math::max);
		}
		return rejected;
	}

	/**
	 * A hold that began after another had the lock must have a higher token, whatever
	 * happened in between.
	 */
	private void checkTokenOrder(List<Hold> byOk, List<String> violations, long[] ghostReentries) {
		List<Hold> byInvoke = new ArrayList<>(byOk);
		byInvoke.sort(Comparator.comparingLong(Hold::invokeNanos));
		int next = 0;
		Hold highest = null;
		for (Hold later : byInvoke) {
			while (next < byOk.size() && byOk.get(next).okNanos() < later.invokeNanos()) {
				Hold candidate = byOk.get(next++);
				if (highest == null || candidate.token() > highest.token()) {
					highest = candidate;
				}
			}
			if (highest != null && later.token() <= highest.token()) {
				if (later.token() == highest.token() && later.owner() != null
						&& later.logicalOwner().equals(highest.logicalOwner())) {
					// A re-entry of a shared custom owner, from another thread or
					// process: the same hold in Redis.
				}
				else if (later.token() == highest.token() && thread(later).equals(thread(highest))) {
					// The same thread got the same hold again: a hold of its own that it
					// had given up on (a lost
					// acquire reply, a release that never reached Redis) was still in
					// Redis.
					ghostReentries[0]++;
				}
				else {
					violations.add("token order: " + later + " began after " + highest + " had the lock");
				}
			}
		}
	}

	/**
	 * Return how long after the fault every key was held again; for a fault on a hold,
	 * how long until its key was held by someone else, which must be within its lease
	 * plus the margin.
	 */
	private @org.jspecify.annotations.Nullable Duration recovery(Fault fault, List<String> violations) {
		if (fault.holdId() != null) {
			Hold victim = this.holds.stream()
				.filter((hold) -> hold.holdId().equals(fault.holdId()))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No hold " + fault.holdId() + " for " + fault));
			Hold next = this.holds.stream()
				.filter((hold) -> hold.key().equals(victim.key()) && !hold.worker().equals(victim.worker())
						&& hold.okNanos() > victim.okNanos())
				.min(Comparator.comparingLong(Hold::okNanos))
				.orElse(null);
			if (next == null || next.okNanos() > victim.latestLeaseEndNanos() + this.marginNanos) {
				violations.add(fault.kind() + ": " + victim + " was next acquired "
						+ ((next != null) ? "by " + next + ", " + millis(next.okNanos() - victim.latestLeaseEndNanos())
								+ " ms after its lease ended" : "never"));
			}
			return (next != null) ? Duration.ofNanos(next.okNanos() - fault.startNanos()) : null;
		}
		if (fault.worker() != null) {
			long first = this.holds.stream()
				.filter((hold) -> hold.worker().equals(fault.worker()) && hold.okNanos() > fault.endNanos())
				.mapToLong(Hold::okNanos)
				.min()
				.orElse(Long.MAX_VALUE);
			if (first == Long.MAX_VALUE) {
				violations.add(fault.kind() + ": worker " + fault.worker() + " never acquired a lock again");
				return null;
			}
			return Duration.ofNanos(first - fault.endNanos());
		}
		Set<String> keys = new TreeSet<>();
		this.holds.forEach((hold) -> keys.add(hold.key()));
		long recovered = fault.endNanos();
		for (String key : keys) {
			long first = this.holds.stream()
				.filter((hold) -> hold.key().equals(key) && hold.okNanos() > fault.endNanos())
				.mapToLong(Hold::okNanos)
				.min()
				.orElse(Long.MAX_VALUE);
			if (first == Long.MAX_VALUE) {
				violations.add(fault.kind() + ": key " + key + " was never acquired again after the fault ended");
				return null;
			}
			recovered = Math.max(recovered, first);
		}
		return Duration.ofNanos(recovered - fault.endNanos());
	}

	/**
	 * Return how long the longest run of one thread's holds sharing one token lasted:
	 * while a thread keeps re-entering a hold it does not know it has, the lock stays
	 * taken for everyone else.
	 */
	private Duration longestGhostChain() {
		Map<String, long[]> chains = new HashMap<>();
		for (Hold hold : this.holds) {
			if (hold.endNanos() == Long.MAX_VALUE) {
				continue;
			}
			long[] chain = chains.computeIfAbsent(thread(hold) + " " + hold.key() + " " + hold.token(),
					(id) -> new long[] { Long.MAX_VALUE, Long.MIN_VALUE, 0 });
			chain[0] = Math.min(chain[0], hold.okNanos());
			chain[1] = Math.max(chain[1], hold.endNanos());
			chain[2]++;
		}
		long longest = 0;
		for (long[] chain : chains.values()) {
			if (chain[2] > 1) {
				longest = Math.max(longest, chain[1] - chain[0]);
			}
		}
		return Duration.ofNanos(longest);
	}

	private static String thread(Hold hold) {
		return hold.holdId().substring(0, hold.holdId().lastIndexOf('-'));
	}

	private static String millis(long nanos) {
		return String.format("%.1f", nanos / 1e6);
	}

}
