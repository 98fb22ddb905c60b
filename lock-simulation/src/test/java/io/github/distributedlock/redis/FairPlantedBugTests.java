package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.simulation.ScriptTexts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Plants bugs into the fair lock's scripts and checks that the simulation finds each in
 * its seeds of the fair lock, as {@link PlantedBugTests} does for the others. The fair
 * lock is drawn in a quarter of the seeds, from a PRNG of its own that leaves seeds
 * 1000–1007 as they were (the other planted bugs are found there); its first seeds are
 * 1008 and 1011.
 */
class FairPlantedBugTests {

	private static final int MAX_SEEDS = 300;

	/**
	 * An unfair acquire: a waiter takes a free lock whoever is first in the queue.
	 * Nothing overlaps and the tokens grow; only the order of the queue is broken, which
	 * the simulation checks in runs without Redis stalls ({@link FairOrder}).
	 */
	@Test
	void findsAFairAcquireThatIgnoresTheQueue() {
		String text = ScriptTexts.all().get("acquire-fair.lua");
		String rule = "local turn = not head or head == waiter";
		assertThat(text).contains(rule);
		Map<String, String> planted = Map.of("acquire-fair.lua", text.replace(rule, "local turn = true"));
		Set<Fault> faults = EnumSet.complementOf(EnumSet.of(Fault.STALL));
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE, faults);
			String violation = simulation.run(4, 25);
			if (violation != null) {
				assertThat(simulation.fair()).as("seed %d draws the fair lock", seed).isTrue();
				assertThat(violation).contains("was granted the fair lock");
				FailureShrinker.Shrunk shrunk = FailureShrinker.shrink(seed, planted, LockSimulation.ClientBug.NONE, 4,
						25, faults);
				assertThat(shrunk).as("seed %d shrunk", seed).isNotNull();
				assertThat(shrunk.events()).hasSizeLessThanOrEqualTo(simulation.events().size());
				System.out.println("planted unfair acquire-fair.lua found: " + shrunk.report());
				return;
			}
		}
		fail("no seed within %d found the unfair acquire", MAX_SEEDS);
	}

	/**
	 * A liveness bug: a release that names no waiter as next. Nothing overlaps; the head
	 * of the queue sleeps until the holder's lease it last heard of ends (or its
	 * heartbeat), far past the bound a run without faults (nor minimum holds) keeps.
	 */
	@Test
	void findsAFairReleaseThatNamesNobody() {
		String text = ScriptTexts.all().get("release-fair.lua");
		String named = "'next:' .. (head or '')";
		assertThat(text).contains(named);
		Map<String, String> planted = Map.of("release-fair.lua", text.replace(named, "'next:'"));
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE,
					EnumSet.of(Fault.CANCEL));
			assertThat(simulation.run(4, 25)).isNull();
			long bound = simulation.waitBoundNanos(0);
			if (simulation.fair() && !simulation.sharedOwners()
					&& (simulation.gaveUp() > 0 || simulation.longestWaitNanos() > bound)) {
				System.out.printf("planted release-fair.lua that names nobody found: seed %d, %s (bound %.1f ms), "
						+ "%d gave up%n", seed, simulation.longestWait(), bound / 1e6, simulation.gaveUp());
				return;
			}
		}
		fail("no seed within %d waited past the bound", MAX_SEEDS);
	}

	/**
	 * A join of its owner's hold that keeps the joiner's place in the queue: the owner's
	 * last release then names that place, whose acquisition is over, and the next waiter
	 * sleeps until its next call, far past the bound that runs of shared custom owners
	 * without minimum holds keep.
	 */
	@Test
	void findsAFairJoinThatKeepsItsPlace() {
		String text = ScriptTexts.all().get("acquire-fair.lua");
		String leave = "\tredis.call('ZREM', KEYS[4], waiter)\n\tredis.call('ZREM', KEYS[5], waiter)\n"
				+ "\t-- Another hold";
		assertThat(text).contains(leave);
		Map<String, String> planted = Map.of("acquire-fair.lua", text.replace(leave, "\t-- Another hold"));
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE,
					EnumSet.of(Fault.CANCEL));
			assertThat(simulation.run(4, 25)).isNull();
			long bound = simulation.waitBoundNanos(0);
			if (simulation.fair() && simulation.sharedOwners()
					&& (simulation.gaveUp() > 0 || simulation.longestWaitNanos() > bound)) {
				System.out.printf(
						"planted acquire-fair.lua whose join keeps its place found: seed %d, %s (bound %.1f "
								+ "ms), %d gave up%n",
						seed, simulation.longestWait(), bound / 1e6, simulation.gaveUp());
				return;
			}
		}
		fail("no seed within %d waited past the bound", MAX_SEEDS);
	}

	/**
	 * A waiter that leaves the queue but not its heartbeat: nothing overlaps and nobody
	 * waits on it (the queue no longer holds it), but the heartbeats key outlives every
	 * waiter, which the check for keys left after a run must see.
	 */
	@Test
	void findsAFairLeaveThatLeavesItsHeartbeat() {
		String text = ScriptTexts.all().get("leave-fair.lua");
		String heartbeat = "redis.call('ZREM', KEYS[4], waiter)\n";
		assertThat(text).contains(heartbeat);
		Map<String, String> planted = Map.of("leave-fair.lua", text.replace(heartbeat, ""));
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			// Without late commands: a fair attempt that runs after its waiter left puts
			// it back in the queue, so the check gives such a run's queue its lifetime.
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE,
					EnumSet.complementOf(EnumSet.of(Fault.LATE)));
			assertThat(simulation.run(4, 25)).isNull();
			List<String> left = simulation.keysLeft();
			if (!left.isEmpty()) {
				assertThat(simulation.fair()).as("seed %d draws the fair lock", seed).isTrue();
				System.out.printf("planted leave-fair.lua that leaves its heartbeat found: seed %d, keys left %s%n",
						seed, left);
				return;
			}
		}
		fail("no seed within %d left a key", MAX_SEEDS);
	}

}
