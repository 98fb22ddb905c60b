package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.simulation.RedisModel;
import org.jspecify.annotations.Nullable;

/**
 * The checks of a run of multi-locks, lock by lock: each lock's history of holds
 * ({@link HoldChecker}: exclusion and tokens), the holds the clients count on, checked
 * against Redis after every event ({@link HoldsInRedis}), and the locks kept for a
 * minimum hold ({@link KeptLock}: granted to nobody else, and kept in Redis, until the
 * keep ends). The clients tell it of every hold they count on, renew, extend, lose or
 * release.
 */
final class MultiLockChecks {

	private final RedisModel redis;

	// Each lock's history, by lock key.
	private final Map<String, HoldChecker> checkers = new LinkedHashMap<>();

	// The locks kept for a minimum hold after a release, by lock key.
	private final Map<String, List<KeptLock>> kept = new HashMap<>();

	// The holds the clients count on (released or not, until the run drops them).
	private final List<ClientHold> holds = new ArrayList<>();

	private final Consumer<MultiLockRun.Counted> counted;

	private final Consumer<String> notes;

	// The command whose reply is being read.
	private final Supplier<@Nullable String> hearing;

	private @Nullable String violation;

	MultiLockChecks(RedisModel redis, Consumer<MultiLockRun.Counted> counted, Consumer<String> notes,
			Supplier<@Nullable String> hearing) {
		this.redis = redis;
		this.hearing = hearing;
		this.counted = counted;
		this.notes = notes;
	}

	/**
	 * Check a lock from now on.
	 */
	void lock(String lockKey) {
		this.checkers.put(lockKey, new HoldChecker(0));
	}

	/**
	 * Return what the locks' histories show first, else what the live check found.
	 */
	@Nullable String violation() {
		for (Map.Entry<String, HoldChecker> checker : this.checkers.entrySet()) {
			String found = checker.getValue().violation();
			if (found != null) {
				return "lock " + checker.getKey() + ": " + found;
			}
		}
		return this.violation;
	}

	long nanos() {
		return this.redis.clock().nanos();
	}

	void violated(String what) {
		if (this.violation == null) {
			this.violation = what;
		}
	}

	/**
	 * Every hold its holder counts on is its owner's in Redis, with a TTL that reaches
	 * the hold's deadline ({@link HoldsInRedis}); every lock kept for a minimum hold
	 * stays kept in Redis until the keep ends ({@link KeptLock#liveViolation}).
	 */
	void checkLiveHolds() {
		if (!this.redis.answering()) {
			return;
		}
		long now = this.redis.clock().nanos();
		for (Map.Entry<String, List<KeptLock>> kept : this.kept.entrySet()) {
			kept.getValue().removeIf((keep) -> keep.lastNanos() - now < 0);
			for (KeptLock keep : kept.getValue()) {
				String found = keep.liveViolation(this.redis, kept.getKey(), now);
				if (found != null) {
					violated(found);
					return;
				}
			}
		}
		this.holds.removeIf((held) -> !held.live(now));
		for (ClientHold held : this.holds) {
			String key = held.key();
			String found = held.reader()
					? HoldsInRedis.readerViolation(this.redis, key, held.owner, held.grant.hold(), held.endNanos())
					: HoldsInRedis.writerViolation(this.redis, key, held.owner, held.endNanos());
			if (found != null) {
				violated(held.holder + " counts on " + key + " (token " + held.grant.token() + ") for another "
						+ (held.endNanos() - now) / 1e6 + " ms, but " + found);
				return;
			}
		}
	}

	/**
	 * Count on a grant whose acquire script ran at {@code ranNanos}: check it against the
	 * locks kept for a minimum hold and its lock's history, and from now on against
	 * Redis. A grant nested in a hold of the same client, lock and token ({@code outer})
	 * moves that hold's end in the history rather than starting a hold of its own.
	 */
	ClientHold held(String holder, String owner, Grant grant, long ranNanos, @Nullable ClientHold outer) {
		long now = this.redis.clock().nanos();
		ClientHold held = new ClientHold(holder, owner, grant, now, outer, this);
		for (KeptLock keep : this.kept.getOrDefault(held.key(), List.of())) {
			String found = keep.grantViolation(holder, grant.token(), ranNanos);
			if (found != null) {
				violated(found);
			}
		}
		for (ClientHold other : this.holds) {
			if (!other.holder.equals(holder) && other.owner.equals(owner) && other.key().equals(held.key())
					&& other.grant.token() == grant.token() && other.live(now)) {
				this.counted.accept(MultiLockRun.Counted.JOINED);
				break;
			}
		}
		HoldChecker checker = this.checkers.get(held.key());
		if (held.outer != null) {
			checker.extended(holder, grant.token(), now, held.endNanos());
		}
		else {
			checker.held(holder, owner, grant.token(), now, held.endNanos(), held.reader());
		}
		this.holds.add(held);
		return held;
	}

	/**
	 * Return what is wrong with a writer's hold that its holder counts on until
	 * {@code endNanos}, as Redis holds it now, or {@code null}.
	 */
	@Nullable String writerViolation(ClientHold held, long endNanos) {
		return HoldsInRedis.writerViolation(this.redis, held.key(), held.owner, endNanos);
	}

	/**
	 * The holder stops counting on a hold: it sends its release now. A nested hold's
	 * release leaves the hold it is nested in, which counts on its own lease again.
	 */
	void released(ClientHold held) {
		long now = this.redis.clock().nanos();
		if (held.outer == null) {
			this.checkers.get(held.key()).released(held.holder, held.grant.token(), Math.min(now, held.endNanos()));
			return;
		}
		// From now on the holder counts on its other holds of the lock and token only.
		long deadline = now;
		for (ClientHold other : this.holds) {
			if (other != held && other.holder.equals(held.holder) && other.key().equals(held.key())
					&& other.grant.token() == held.grant.token() && other.live(now)
					&& other.endNanos() - deadline > 0) {
				deadline = other.endNanos();
			}
		}
		this.checkers.get(held.key()).nestedReleased(held.holder, held.grant.token(), now, deadline);
	}

	/**
	 * A renewal's or an extension's reply said the hold is gone: the handle reports it
	 * lost, and its holder stops counting on it (and on the hold it is nested in).
	 */
	void lost(ClientHold held) {
		this.notes.accept(held.holder + " lost " + held);
		this.checkers.get(held.key()).released(held.holder, held.grant.token(), this.redis.clock().nanos());
	}

	/**
	 * A renewal or an extension moved a live hold's deadline later.
	 */
	void extended(ClientHold held) {
		this.counted
			.accept("renew".equals(this.hearing.get()) ? MultiLockRun.Counted.RENEWED : MultiLockRun.Counted.EXTENDED);
		this.checkers.get(held.key())
			.extended(held.holder, held.grant.token(), this.redis.clock().nanos(), held.endNanos());
	}

	/**
	 * Record a release that keeps its lock for what is left of its minimum hold: no other
	 * hold may be granted it until the keep ends.
	 */
	KeptLock kept(ClientHold held, KeptLock keep) {
		this.kept.computeIfAbsent(held.key(), (key) -> new ArrayList<>()).add(keep);
		this.counted.accept(MultiLockRun.Counted.KEPT);
		return keep;
	}

	/**
	 * The reply of a release that kept its lock was read: from now on Redis must keep it,
	 * unless the hold was gone, and there was nothing to keep.
	 */
	void keptRead(ClientHold held, KeptLock keep, boolean there) {
		if (there) {
			keep.read = true;
		}
		else {
			this.kept.get(held.key()).remove(keep);
		}
	}

	int holds() {
		return this.checkers.values().stream().mapToInt(HoldChecker::holds).sum();
	}

	/**
	 * Return how many of the holds were read holds.
	 */
	int readHolds() {
		return this.checkers.values().stream().mapToInt(HoldChecker::readHolds).sum();
	}

}
