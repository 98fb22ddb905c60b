package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.simulation.SimulationRandom;

import org.jspecify.annotations.Nullable;

/**
 * The minimum holds of readers' and permits' acquisitions, and what the engine promises
 * for them ({@code docs/locks/minimum-hold.md}). A reader released before its minimum
 * hold ended leaves a stand-in {@code kept|<owner digest>} in the readers set
 * ({@code release-read.lua}): no writer may be granted before the minimum hold ends. A
 * permit released before leaves {@code kept|<owner digest>|<hold id>} in the permits set
 * ({@code release-permit.lua}): the permit stays taken until then, which the
 * {@link HoldChecker} counts. Both ends are capped by the hold's lease, as for writers.
 * <p>
 * The minimum holds are drawn from a PRNG of their own, so that drawing them changes no
 * other choice of a run: with {@link LockSimulation.Fault#READ_KEEP} and
 * {@link LockSimulation.Fault#PERMIT_KEEP} off, or in a run without readers or permits,
 * every run is the run it was before.
 */
final class SharedKeeps {

	// The minimum holds drawn, as writers': around a third of the shortest lease (150
	// ms), the shortest lease and the lock's lease (1 s), never past the lease.
	private static final long[] MINIMUMS_MS = { 50, 150, 1_000 };

	private final SimulationRandom random;

	private final boolean readersKeep;

	private final boolean permitsKeep;

	private final Map<Long, LockSpec> specs = new HashMap<>();

	// Readers released before their minimum holds ended, and the stand-ins they left.
	private final List<Kept> readers = new ArrayList<>();

	private final List<Kept> permits = new ArrayList<>();

	private long keptReads;

	private long keptPermits;

	/**
	 * @param seed the run's seed
	 * @param readersKeep whether the run draws readers' minimum holds
	 * ({@link LockSimulation.Fault#READ_KEEP})
	 * @param permitsKeep whether the run draws permits' minimum holds
	 * ({@link LockSimulation.Fault#PERMIT_KEEP})
	 */
	SharedKeeps(long seed, boolean readersKeep, boolean permitsKeep) {
		this.random = new SimulationRandom(seed ^ 0x73686172L);
		this.readersKeep = readersKeep;
		this.permitsKeep = permitsKeep;
	}

	/**
	 * Return the spec a reader's or a permit's acquisition takes with: a quarter of them
	 * hold at least a minimum hold, resolved by {@code withMinimum}.
	 */
	LockSpec spec(LockSpec plain, LongFunction<LockSpec> withMinimum) {
		boolean keeps = this.random.nextInt(4) == 0;
		long minimum = MINIMUMS_MS[this.random.nextInt(MINIMUMS_MS.length)] - 1 + this.random.nextInt(3);
		if (!keeps || !(plain.kind().waitsAsReader() ? this.readersKeep : this.permitsKeep)) {
			return plain;
		}
		long holdAtLeast = Math.min(minimum, plain.leaseMillis());
		return this.specs.computeIfAbsent(holdAtLeast, withMinimum::apply);
	}

	/**
	 * Record a reader's release that keeps its owner reading, by the stand-in
	 * {@code kept|<owner digest>}, until {@code kept} ends.
	 */
	void keptRead(KeptLock kept, String hold) {
		this.readers.add(new Kept(kept, "kept|" + LockOwners.digest(kept.owner), hold));
		this.keptReads++;
	}

	/**
	 * Record a permit's release that keeps the permit taken, by the stand-in
	 * {@code kept|<owner digest>|<hold id>}, until {@code kept} ends.
	 */
	void keptPermit(KeptLock kept, String hold) {
		this.permits.add(new Kept(kept, "kept|" + LockOwners.digest(kept.owner) + "|" + hold, hold));
		this.keptPermits++;
	}

	/**
	 * Forget a release whose reply said the hold was lost: there was nothing to keep.
	 */
	void lost(KeptLock kept) {
		this.readers.removeIf((reader) -> reader.lock == kept);
		this.permits.removeIf((permit) -> permit.lock == kept);
	}

	/**
	 * Hand each stand-in still kept to {@code each}: the kept lock, the id of the hold
	 * released, and whether it is a reader's (else a permit's).
	 */
	void forEachKept(Each each) {
		this.readers.forEach((kept) -> each.kept(kept.lock, kept.hold, true));
		this.permits.forEach((kept) -> each.kept(kept.lock, kept.hold, false));
	}

	/**
	 * What {@link #forEachKept} hands each stand-in to.
	 */
	interface Each {

		void kept(KeptLock lock, String hold, boolean reader);

	}

	/**
	 * A writer's grant whose acquire script ran at {@code ranNanos}: no reader kept for a
	 * minimum hold may have it end early.
	 * @return the violation, or {@code null}
	 */
	@Nullable String writerGranted(String holder, long token, long ranNanos) {
		for (Kept reader : this.readers) {
			if (reader.lock.grantedWithin(ranNanos)) {
				return holder + " was granted token " + token + " at " + LockSimulation.at(ranNanos) + " ms, but "
						+ reader.lock.holder + " released read token " + reader.lock.token
						+ " keeping its owner reading until " + LockSimulation.at(reader.lock.endNanos)
						+ " ms (its minimum hold)";
			}
		}
		return null;
	}

	/**
	 * Each stand-in, once its release's reply was read, is in Redis until the minimum
	 * hold ends (Redis keeps scores in whole milliseconds: 1 ms of slack).
	 * @param score the score of a member in the readers set (first) or the permits set
	 * @return the violation, or {@code null}
	 */
	@Nullable String liveViolation(long nowNanos, Scores score) {
		this.readers.removeIf((kept) -> kept.lock.lastNanos() - nowNanos < 0);
		this.permits.removeIf((kept) -> kept.lock.lastNanos() - nowNanos < 0);
		for (Kept reader : this.readers) {
			String found = reader.violation(nowNanos, score.of(true, reader.member));
			if (found != null) {
				return found;
			}
		}
		for (Kept permit : this.permits) {
			String found = permit.violation(nowNanos, score.of(false, permit.member));
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/**
	 * Return how many readers' releases kept their owner reading for a minimum hold.
	 */
	long keptReads() {
		return this.keptReads;
	}

	/**
	 * Return how many permits' releases kept their permit taken for a minimum hold.
	 */
	long keptPermits() {
		return this.keptPermits;
	}

	/**
	 * The score of a member of the readers set or the permits set in Redis.
	 */
	interface Scores {

		/**
		 * Return the member's score (ms), or {@code null} if it is not there.
		 */
		@Nullable Long of(boolean readers, String member);

	}

	private record Kept(KeptLock lock, String member, String hold) {

		@Nullable String violation(long nowNanos, @Nullable Long scoreMillis) {
			if (!this.lock.read || this.lock.lost
					|| this.lock.endNanos - LockSimulation.REDIS_MS_SLACK - nowNanos <= 0) {
				return null;
			}
			String released = this.lock.holder + " released token " + this.lock.token + " keeping " + this.member
					+ " until " + LockSimulation.at(this.lock.endNanos) + " ms (its minimum hold), but ";
			if (scoreMillis == null) {
				return released + "Redis has no such member";
			}
			if (scoreMillis * LockSimulation.MS + LockSimulation.REDIS_MS_SLACK - this.lock.endNanos < 0) {
				return released + "Redis keeps it " + (scoreMillis * LockSimulation.MS - nowNanos) / 1e6 + " ms";
			}
			return null;
		}

	}

}
