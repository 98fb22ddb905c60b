package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.simulation.RedisModel;
import org.jspecify.annotations.Nullable;

/**
 * Finds what a fault that loses writes ({@link RedisFaults}) took from the holders: the
 * state in Redis of every hold a holder counts on or will count on (an attempt or a
 * re-entry whose script ran and whose reply is not read yet), and of every lock kept for
 * a minimum hold, read just before the fault and just after it. A state the fault took
 * away (gone, or no longer theirs) or cut short (it ends earlier than it did) was lost by
 * that fault, as docs/guarantees.md allows: "locks written to the old master but not yet
 * replicated are lost: a second holder can enter during that window", "an evicted lock is
 * lost: a second holder can enter". Nothing else is: a state the fault left as it was is
 * held to every check, and so is every grant made after the fault.
 */
final class LostState {

	// A writer's hold whose owner and token still hold the lock, without its own field.
	private static final long FIELD_GONE = -2;

	private final RedisModel redis;

	private final String lockKey;

	private final String permitsKey;

	// The holds whose state a fault took while their replies were in flight, by hold id.
	private final Map<String, Damage> inFlight = new HashMap<>();

	private int gone;

	private int shortened;

	private int keptLost;

	private int repliesChecked;

	/**
	 * @param redis the server
	 * @param lockKey the lock's key (writers' and readers')
	 * @param permitsKey the semaphore's permits set, for runs of permits
	 */
	LostState(RedisModel redis, String lockKey, String permitsKey) {
		this.redis = redis;
		this.lockKey = lockKey;
		this.permitsKey = permitsKey;
	}

	/**
	 * Read, for each target, where its state in Redis ends (server ms), or -1 if it is
	 * not there; call before the fault and after it.
	 */
	long[] ends(List<Target> targets) {
		long[] ends = new long[targets.size()];
		for (int i = 0; i < ends.length; i++) {
			ends[i] = end(targets.get(i));
		}
		return ends;
	}

	/**
	 * Return the targets whose state the fault took or cut short, given their ends before
	 * and after it; remember the holds among them whose replies are in flight.
	 */
	List<Damage> damaged(List<Target> targets, long[] before, long[] after, String fault, boolean failover,
			long nowNanos) {
		List<Damage> damaged = new ArrayList<>();
		for (int i = 0; i < before.length; i++) {
			if (before[i] < 0 || (after[i] >= 0 && after[i] >= before[i])) {
				continue;
			}
			Target target = targets.get(i);
			// A writer's hold whose field alone went (its owner and token still hold the
			// lock) is lost, but its scripts' replies don't say so.
			Damage damage = new Damage(target, after[i] < 0, after[i] != FIELD_GONE, fault, failover, nowNanos);
			damaged.add(damage);
			if (target.kind() == Kind.KEPT_LOCK || target.kind() == Kind.KEPT_READ
					|| target.kind() == Kind.KEPT_PERMIT) {
				this.keptLost++;
			}
			else if (target.inFlight()) {
				this.inFlight.put(target.hold(), damage);
			}
			else if (damage.gone()) {
				this.gone++;
			}
			else {
				this.shortened++;
			}
		}
		return damaged;
	}

	/**
	 * Return the fault that took a hold whose reply was in flight, if one did.
	 */
	@Nullable Damage inFlight(String hold) {
		return this.inFlight.get(hold);
	}

	/**
	 * Return the holds whose replies are in flight that a fault took, and that are in
	 * Redis again now (a failover lost the fault's write).
	 */
	List<String> foundAgainInFlight() {
		return this.inFlight.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().gone() && !gone(entry.getValue().target()))
			.map(Map.Entry::getKey)
			.toList();
	}

	/**
	 * Return whether the state of a target is not in Redis now.
	 */
	boolean gone(Target target) {
		return end(target) < 0;
	}

	/**
	 * Count a hold taken in flight that its holder now counts on, once.
	 */
	void countedOn(Damage damage) {
		if (this.inFlight.remove(damage.target().hold()) != null) {
			if (damage.gone()) {
				this.gone++;
			}
			else {
				this.shortened++;
			}
		}
	}

	/**
	 * Count a reply to a lost hold's renewal, extension or release, sent after the fault,
	 * that was checked to say the hold is lost.
	 */
	void replyChecked() {
		this.repliesChecked++;
	}

	/**
	 * Return how many holds faults took (their state gone or no longer theirs), how many
	 * they cut short, how many locks kept for a minimum hold they took, and how many
	 * replies to the lost holds' scripts were checked, in that order.
	 */
	int[] counts() {
		return new int[] { this.gone, this.shortened, this.keptLost, this.repliesChecked };
	}

	private long end(Target target) {
		String digest = LockOwners.digest(target.owner());
		return switch (target.kind()) {
			case WRITER -> writerEnd(digest, target);
			case READER -> readerEnd(digest, target.hold());
			case PERMIT -> score(this.permitsKey, digest + "|" + target.hold());
			case KEPT_LOCK -> keptLockEnd(digest, (KeptLock) target.subject());
			case KEPT_READ -> released(target) ? score(LockKeys.readers(this.lockKey), "kept|" + digest)
					: readerEnd(digest, target.hold());
			case KEPT_PERMIT ->
				score(this.permitsKey, (released(target) ? "kept|" : "") + digest + "|" + target.hold());
		};
	}

	/**
	 * Return whether a reader's or a permit's keep is its stand-in: its release ran.
	 * Before, as for a writer's kept lock, the keep is the hold itself (its release has
	 * not run, or never reaches Redis), which a fault may lose as well (seed 44391).
	 */
	private static boolean released(Target target) {
		return target.subject() instanceof KeptLock kept && kept.ranNanos >= 0;
	}

	private long writerEnd(String digest, Target target) {
		Object held = this.redis.inspect("HMGET", this.lockKey, "owner", "token", "#" + target.hold());
		List<?> fields = (List<?>) held;
		if (!digest.equals(fields.get(0))) {
			return -1;
		}
		// Its owner and token, and its own field: a client of a custom owner that joined
		// another's hold has a field of its own, which a failover may lose alone.
		if (!target.inFlight() && !String.valueOf(target.token()).equals(fields.get(1))) {
			return -1;
		}
		return (fields.get(2) != null) ? ttlEnd(this.lockKey) : FIELD_GONE;
	}

	private long readerEnd(String digest, String hold) {
		Object holds = this.redis.inspect("HGET", LockKeys.readHolds(this.lockKey), digest);
		if (holds == null || !holds.toString().contains("," + hold + ",")) {
			return -1;
		}
		return score(LockKeys.readers(this.lockKey), digest);
	}

	private long keptLockEnd(String digest, @Nullable KeptLock kept) {
		List<?> fields = (List<?>) this.redis.inspect("HMGET", this.lockKey, "owner", "kept");
		Object owner = fields.get(0);
		if ("".equals(owner)) {
			return ttlEnd(this.lockKey);
		}
		if (!digest.equals(owner)) {
			return -1;
		}
		// Still its owner's: before the release ran, the hold itself (seed 5979); after,
		// only beside the owner's other holds, until the end the release recorded
		// ('kept'). Without it, a failover brought back the hold the release had ended,
		// and lost the keep (seed 18450: the owner's next acquisition took that hold over
		// and freed the lock). With an earlier end, a failover lost the release and
		// brought back an earlier inner hold's end, cutting the keep short (seed 104129).
		if (kept == null || kept.ranNanos < 0) {
			// The hold itself: its own field too, which a failover may lose alone (seed
			// 27878: the re-entry whose release was held back by a stall).
			if (kept != null && this.redis.inspect("HGET", this.lockKey, "#" + kept.hold) == null) {
				return FIELD_GONE;
			}
			return ttlEnd(this.lockKey);
		}
		Object recorded = fields.get(1);
		if (recorded == null) {
			return -1;
		}
		return Math.min(ttlEnd(this.lockKey), (long) Double.parseDouble(recorded.toString()));
	}

	private long ttlEnd(String key) {
		long ttl = (Long) this.redis.inspect("PTTL", key);
		return (ttl == -1) ? Long.MAX_VALUE : (ttl < 0) ? -1 : this.redis.clock().millis() + ttl;
	}

	private long score(String key, String member) {
		Object score = this.redis.inspect("ZSCORE", key, member);
		return (score != null) ? Long.parseLong(score.toString()) : -1;
	}

	/**
	 * What a target's state is.
	 */
	enum Kind {

		/** A writer's hold (the lock hash's owner and token). */
		WRITER,

		/** A reader's hold (its owner's score, and its hold in its owner's list). */
		READER,

		/** A permit (its member of the permits set). */
		PERMIT,

		/** A lock kept for a writer's minimum hold (owned by nobody, or its owner). */
		KEPT_LOCK,

		/**
		 * A reader's stand-in, {@code kept|<owner digest>}, or the hold itself until its
		 * release runs.
		 */
		KEPT_READ,

		/**
		 * A permit's stand-in, {@code kept|<owner digest>|<hold id>}, or the permit
		 * itself until its release runs.
		 */
		KEPT_PERMIT

	}

	/**
	 * A state in Redis that a holder counts on.
	 *
	 * @param kind what it is
	 * @param holder the client
	 * @param owner its owner
	 * @param hold the hold's id (for a kept read or permit: the released hold's)
	 * @param token the hold's token (0 while its grant is in flight)
	 * @param inFlight whether its grant's reply is not read yet
	 * @param subject what the simulation marks as lost: its hold or kept lock
	 */
	record Target(Kind kind, String holder, String owner, String hold, long token, boolean inFlight,
			@Nullable Object subject) {
	}

	/**
	 * A target a fault lost.
	 *
	 * @param target the target
	 * @param gone whether its state went (or is no longer theirs), or only ends earlier
	 * @param saysLost whether the hold's scripts must say it is lost (a writer's hold
	 * whose field alone went is reported by its release as released before)
	 * @param fault what the fault was
	 * @param failover whether it was a failover (else an eviction)
	 * @param atNanos when
	 */
	record Damage(Target target, boolean gone, boolean saysLost, String fault, boolean failover, long atNanos) {

		/**
		 * Return this damage, after a later fault brought the state back: its scripts
		 * need not say lost any more.
		 */
		Damage foundAgain() {
			return new Damage(this.target, this.gone, false, this.fault, this.failover, this.atNanos);
		}

		String describe() {
			return (this.gone ? "lost by " : "cut short by ") + this.fault + " at " + LockSimulation.at(this.atNanos)
					+ " ms";
		}

	}

}
