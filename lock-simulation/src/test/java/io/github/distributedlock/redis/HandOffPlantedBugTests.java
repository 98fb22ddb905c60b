package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.simulation.ScriptTexts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Plants order and liveness bugs into the release's hand-off ({@code pass_on} in
 * {@code lib.lua}, which {@code release.lua} calls), and into what a try's attempt
 * ({@code acquire.lua}) leaves or answers, and checks that the simulation's hand-off
 * oracles ({@link HandOffOrder}) find each, as {@link PlantedBugTests} does for the
 * safety bugs: nothing overlaps in any, so only the oracles of order, of the message and
 * of each refusal can see them.
 */
class HandOffPlantedBugTests {

	private static final int MAX_SEEDS = 300;

	private static final String OLDEST = "local line = reserve and redis.call('ZRANGE', requests, '0', '0') or {}";

	private static final String NEWEST = "local line = reserve and redis.call('ZRANGE', requests, '-1', '-1') or {}";

	private static final String TOLD = "redis.call('PUBLISH', channel, 'reserved:' .. next)";

	private static final String TAKE_MARKED = "'token', token, hold, block, 'queued', '1')";

	private static final String TAKE_MARKED_IF_WAITING = "'token', token, hold, block)\n"
			+ "\t\tif waits then redis.call('HSET', KEYS[1], 'queued', '1') end";

	private static final String FREE_NAME = "if request == '' and redis.call('EXISTS', KEYS[1], KEYS[3], KEYS[4], KEYS[5]) == 0 then";

	private static final String REFUSE_A_TRY = "if ARGV[4] == '0' and redis.call('EXISTS', KEYS[1], KEYS[3]) == 0 then\n"
			+ "\treturn {0, 0, 0}\nend\n";

	/**
	 * Every fault but those whose attempts wait 0 too: re-entries, and the undo of an
	 * attempt whose reply was lost ({@link LockSimulation.Fault#CUT}, with
	 * {@link LockSimulation.Fault#LATE}). The try plants must be found by the writers'
	 * tries.
	 */
	private static final Set<LockSimulation.Fault> WITHOUT_OTHER_TRIES = EnumSet
		.complementOf(EnumSet.of(LockSimulation.Fault.REENTER, LockSimulation.Fault.CUT, LockSimulation.Fault.LATE));

	/**
	 * An unfair release: it reserves the lock for the newest request in line rather than
	 * the oldest, so an older waiter is passed over.
	 */
	@Test
	void findsAReleaseThatReservesForANewerRequest() {
		String found = firstViolation(OLDEST, NEWEST);
		assertThat(found).contains("not the oldest request in line")
			.contains("a release hands the lock to the oldest waiter");
	}

	/**
	 * A silent release: it reserves the lock for the oldest request but publishes
	 * nothing, so a pub/sub waiter in line is not told.
	 */
	@Test
	void findsAReleaseThatPublishesNothingToTheLine() {
		String found = firstViolation(TOLD, "");
		assertThat(found).contains("a waiter in line is told");
	}

	/**
	 * A try that leaves no mark where it must: the lock found free while requests wait in
	 * line (a reservation lapsed, a lease ran out) is taken unmarked when the caller will
	 * not wait, so its release frees the lock with the plain delete and tells the line
	 * nothing. Run without the other attempts that wait 0: a re-entry's second attempt
	 * after a late grant found it at seed 1057 before the writers tried.
	 */
	@Test
	void findsATryThatTakesALockWithALineUnmarked() {
		String found = firstViolation(planted("acquire.lua", TAKE_MARKED, TAKE_MARKED_IF_WAITING), WITHOUT_OTHER_TRIES);
		assertThat(found).contains("a waiter in line is told");
	}

	/**
	 * A try that says "taken" of a lock nobody holds, reserves or reads: nothing else
	 * tells it the lock was free, so only the check of each refusal against the state in
	 * Redis finds it.
	 */
	@Test
	void findsATryRefusedOnAFreeLock() {
		String found = firstViolation(planted("acquire.lua", FREE_NAME, REFUSE_A_TRY + FREE_NAME), WITHOUT_OTHER_TRIES);
		assertThat(found).contains("an attempt that finds the lock free takes it");
	}

	/**
	 * The release that passes over the oldest request again, with the hand-off oracles
	 * muted: the bound on the waits once faults stop (N × (hold + message + round trip))
	 * finds it too, as the oldest waiter is passed over by every newer one.
	 */
	@Test
	void findsAReleaseThatReservesForANewerRequestByTheBound() {
		assertFoundByTheBound("passes over the oldest request", planted(OLDEST, NEWEST));
	}

	/**
	 * The silent release again, with the hand-off oracles muted: the bound finds it too,
	 * as a waiter sleeps until the lease or claim it last heard of ends.
	 */
	@Test
	void findsAReleaseThatPublishesNothingByTheBound() {
		assertFoundByTheBound("publishes nothing", planted(TOLD, ""));
	}

	private static void assertFoundByTheBound(String bug, Map<String, String> planted) {
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			LockSimulation simulation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE,
					EnumSet.noneOf(LockSimulation.Fault.class));
			simulation.muteHandOffOracles();
			assertThat(simulation.run(4, 25)).isNull();
			long bound = simulation.waitBoundNanos(0);
			if (simulation.gaveUp() > 0 || simulation.longestWaitNanos() > bound) {
				System.out.printf(
						"planted release that %s found by the bound: seed %d, %s (bound %.1f ms), " + "%d gave up%n",
						bug, seed, simulation.longestWait(), bound / 1e6, simulation.gaveUp());
				return;
			}
		}
		fail("no seed within %d waited past the bound", MAX_SEEDS);
	}

	private static Map<String, String> planted(String target, String replacement) {
		return planted("release.lua", target, replacement);
	}

	private static Map<String, String> planted(String script, String target, String replacement) {
		String text = ScriptTexts.all().get(script);
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		return Map.of(script, text.replace(target, replacement));
	}

	private static String firstViolation(String target, String replacement) {
		return firstViolation(planted(target, replacement));
	}

	private static String firstViolation(Map<String, String> planted) {
		return firstViolation(planted, EnumSet.allOf(LockSimulation.Fault.class));
	}

	private static String firstViolation(Map<String, String> planted, Set<LockSimulation.Fault> faults) {
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS; seed++) {
			String violation = new LockSimulation(seed, planted, LockSimulation.ClientBug.NONE, faults).run(4, 25);
			if (violation != null) {
				System.out
					.println("planted hand-off bug in " + planted.keySet() + " found: seed " + seed + ": " + violation);
				return violation;
			}
		}
		return fail("no seed within %d found the planted bug", MAX_SEEDS);
	}

}
