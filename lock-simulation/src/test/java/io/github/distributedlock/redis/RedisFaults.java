package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.simulation.RedisModel;
import io.github.distributedlock.simulation.SimulationRandom;
import org.jspecify.annotations.Nullable;

/**
 * The faults that lose what Redis was told, drawn for one run from a PRNG of its own (so
 * that a run that draws none is the run it was before they came): failovers to a replica
 * that lags by a drawn number of writes ({@link LockSimulation.Fault#FAILOVER}), and keys
 * the scripts use evicted as under {@code maxmemory}
 * ({@link LockSimulation.Fault#EVICT}). Each is planned at a time of its own; what it
 * lost is for {@link LostState} to find.
 * <p>
 * A replica lags by 0, 1 or a few writes (a script's effects are one write): with 0 a
 * failover loses nothing, with 1 it loses the last script that wrote, and so on. The lag
 * is set as the run starts and again after each failover, so that the writes a failover
 * loses are the ones that came just before it.
 */
final class RedisFaults {

	private static final int[] LAGS = { 0, 1, 1, 2, 4 };

	private final SimulationRandom random;

	private final List<Planned> planned = new ArrayList<>();

	private int failovers;

	private int writesLost;

	private int evictions;

	private long firstNanos = Long.MAX_VALUE;

	private long lastNanos = Long.MIN_VALUE;

	/**
	 * Draw a run's faults: failovers in a quarter of the runs, evictions in a quarter,
	 * each drawn whether or not the run may do it, so that leaving one out changes
	 * nothing else.
	 * @param seed the run's seed
	 * @param failovers whether the run fails over ({@link LockSimulation.Fault#FAILOVER})
	 * @param evictions whether the run evicts keys ({@link LockSimulation.Fault#EVICT})
	 */
	RedisFaults(long seed, boolean failovers, boolean evictions) {
		this.random = new SimulationRandom(seed ^ 0x6661696c6f766572L);
		boolean drawsFailovers = this.random.nextInt(4) == 0;
		boolean drawsEvictions = this.random.nextInt(4) == 0;
		int failoverCount = 1 + this.random.nextInt(2);
		int evictionCount = 1 + this.random.nextInt(3);
		for (int i = 0; i < failoverCount; i++) {
			long at = this.random.between(0, 2_500 * LockSimulation.MS);
			int lag = LAGS[this.random.nextInt(LAGS.length)];
			if (drawsFailovers && failovers) {
				this.planned.add(new Planned(at, true, lag));
			}
		}
		for (int i = 0; i < evictionCount; i++) {
			long at = this.random.between(0, 2_500 * LockSimulation.MS);
			if (drawsEvictions && evictions) {
				this.planned.add(new Planned(at, false, 0));
			}
		}
		this.planned.sort((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
	}

	/**
	 * Return the faults planned, in the order of their times (from the run's start).
	 */
	List<Planned> planned() {
		return List.copyOf(this.planned);
	}

	/**
	 * Let the replica lag by the first failover's lag from the start.
	 */
	void start(RedisModel redis) {
		this.planned.stream().filter(Planned::failover).findFirst().ifPresent((first) -> redis.replicaLag(first.lag()));
	}

	/**
	 * Do a planned fault now.
	 * @param lockKey the lock's key: an eviction draws one of the keys the scripts use
	 * for it that exists
	 * @param permitsKey the permits set of the semaphore of the same name
	 * @return what was done, for the trace; {@code null} if nothing (no key to evict)
	 */
	@Nullable String apply(Planned fault, RedisModel redis, String lockKey, String permitsKey, long nowNanos) {
		this.firstNanos = Math.min(this.firstNanos, nowNanos);
		this.lastNanos = Math.max(this.lastNanos, nowNanos);
		if (fault.failover()) {
			int lost = redis.failover();
			// A promotion takes time (Sentinel takes seconds): the new master answers no
			// command in the microsecond the old one ran its last, whose token its
			// clock could then hand out again (seed 2341, two failovers in one instant).
			if (redis.answering()) {
				redis.stall(Duration.ofMillis(1));
			}
			this.failovers++;
			this.writesLost += lost;
			// The next failover's replica lags from now on.
			int at = this.planned.indexOf(fault);
			this.planned.stream()
				.skip(at + 1)
				.filter(Planned::failover)
				.findFirst()
				.ifPresent((next) -> redis.replicaLag(next.lag()));
			return "redis fails over to a replica " + fault.lag() + " writes behind: " + lost + " writes lost";
		}
		List<String> keys = List.of(lockKey, LockKeys.fence(lockKey), LockKeys.requests(lockKey),
				LockKeys.readers(lockKey), LockKeys.readHolds(lockKey), LockKeys.writerIntent(lockKey), permitsKey,
				LockKeys.fairQueue(lockKey), LockKeys.fairQueueHeartbeats(lockKey));
		List<String> present = keys.stream().filter(redis.keys()::contains).toList();
		if (present.isEmpty()) {
			return null;
		}
		String key = present.get(this.random.nextInt(present.size()));
		Object counter = key.equals(LockKeys.fence(lockKey)) ? redis.inspect("GET", key) : null;
		long ahead = (counter != null) ? Long.parseLong(counter.toString()) - redis.clock().micros() : 0;
		redis.evict(key);
		// Redis evicts while it runs a command, which takes it past the microsecond: no
		// two scripts read one microsecond of TIME around a lost counter (seed 2835). Nor
		// does it run a script in under a microsecond, so its clock has passed every
		// token
		// the counter handed out when the counter goes; the model, which may run several
		// in one microsecond, waits for that too (seed 147250).
		if (redis.answering()) {
			redis.stall(Duration.ofNanos(1_000 * Math.max(1, ahead + 1)));
		}
		this.evictions++;
		return "redis evicts " + key;
	}

	/**
	 * Return when the first fault was done, or {@link Long#MAX_VALUE} if none was.
	 */
	long firstNanos() {
		return this.firstNanos;
	}

	/**
	 * Return when the last fault was done, or {@link Long#MIN_VALUE} if none was.
	 */
	long lastNanos() {
		return this.lastNanos;
	}

	/**
	 * Return how many failovers were done, how many writes they lost, and how many keys
	 * were evicted, in that order.
	 */
	int[] counts() {
		return new int[] { this.failovers, this.writesLost, this.evictions };
	}

	/**
	 * A fault planned for a time from the run's start.
	 *
	 * @param atNanos when, from the start
	 * @param failover a failover, or else an eviction
	 * @param lag how many writes the failover's replica lags by
	 */
	record Planned(long atNanos, boolean failover, int lag) {
	}

}
