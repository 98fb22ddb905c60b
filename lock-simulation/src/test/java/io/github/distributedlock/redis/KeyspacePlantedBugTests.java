package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.simulation.ScriptTexts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Plants the two bugs that tests, not the simulation, found in keyspace waits, and checks
 * that the simulation's runs with keyspace waiters find each: as liveness bugs, in runs
 * without faults, by a waiter past the bound ({@link LockSimulation#calmWaitBoundNanos}),
 * at a seed whose run on today's code keeps it.
 */
class KeyspacePlantedBugTests {

	private static final int MAX_SEEDS = 300;

	/**
	 * The bug fixed in 567ef72: when a read release leaves only other owners' stand-ins
	 * (kept for their minimum holds), the readers set keeps the TTL it had while the last
	 * live reader was there, so its {@code expired}, which keyspace writers wait for,
	 * comes only when that reader's lease would have ended.
	 */
	@Test
	void findsAReadReleaseThatLeavesTheReadersSetsTtlToKeyspaceWriters() {
		String text = ScriptTexts.all().get("release-read.lua");
		String fixed = """
				-- expires when the last of them ends, which is what keyspace waiters hear.
				expire_at_latest(KEYS[1], nowMs, KEYS[2])
				redis.call('PUBLISH', KEYS[3], 'readers-left')""";
		assertThat(text).contains(fixed);
		Map<String, String> planted = Map.of("release-read.lua",
				text.replace(fixed, "\nredis.call('PUBLISH', KEYS[3], 'readers-left')"));
		Set<Fault> calm = EnumSet.of(Fault.KEEP, Fault.READ_KEEP, Fault.PERMIT_KEEP, Fault.CANCEL);
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE, calm);
			if (!simulation.keyspaceEvents() || !simulation.readers() || simulation.multi() != null) {
				continue;
			}
			assertThat(simulation.run(4, 25)).isNull();
			long bound = simulation.waitBoundNanos(0);
			if (simulation.gaveUp() > simulation.gaveUpBehindKept() || simulation.longestWaitNanos() > bound) {
				LockSimulation today = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.NONE, calm);
				assertThat(today.run(4, 25)).isNull();
				assertThat(today.longestWaitNanos()).as("seed %d on today's script", seed).isLessThanOrEqualTo(bound);
				System.out.printf(
						"planted keyspace liveness bug in release-read.lua found: seed %d, %s (bound %.1f "
								+ "ms; %.1f ms on today's script)%n",
						seed, simulation.longestWait(), bound / 1e6, today.longestWaitNanos() / 1e6);
				return;
			}
		}
		fail("no seed with keyspace writers and readers within %d waited past the bound", MAX_SEEDS);
	}

	/**
	 * The engine's bug fixed in 827d627, planted into the clients (the engine's
	 * {@code ReleaseMessage} is sealed, and lock-core stays as it is): in keyspace mode a
	 * fair release's {@code next:<owner>} wakes nobody. Fair waits are held to the bound
	 * without minimum holds and shared custom owners, as in {@code LockSimulationTests}.
	 */
	@Test
	void findsAFairNameThatWakesNoKeyspaceWaiter() {
		LockSimulation.ClientBug bug = LockSimulation.ClientBug.KEYSPACE_IGNORES_FAIR_NAME;
		Set<Fault> calm = EnumSet.of(Fault.CANCEL);
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, Map.of(), bug, calm);
			if (!simulation.keyspaceEvents() || !simulation.fair() || simulation.sharedOwners()
					|| simulation.multi() != null) {
				continue;
			}
			assertThat(simulation.run(4, 25)).isNull();
			long bound = simulation.waitBoundNanos(0);
			if (simulation.gaveUp() > 0 || simulation.longestWaitNanos() > bound) {
				LockSimulation today = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.NONE, calm);
				assertThat(today.run(4, 25)).isNull();
				assertThat(today.longestWaitNanos()).as("seed %d on today's engine", seed).isLessThanOrEqualTo(bound);
				System.out.printf(
						"planted keyspace liveness bug (NextInLine.wakes) found: seed %d, %s (bound %.1f "
								+ "ms; %.1f ms on today's engine)%n",
						seed, simulation.longestWait(), bound / 1e6, today.longestWaitNanos() / 1e6);
				return;
			}
		}
		fail("no seed of the fair lock with keyspace waiters within %d waited past the bound", MAX_SEEDS);
	}

}
