package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.Map;

import io.github.distributedlock.redis.LockSimulation.ClientBug;
import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.simulation.ScriptTexts;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plants bugs that only lost replies ({@link Fault#CUT}) reach, and checks that the
 * simulation finds each within a few seeds, and that the seed that finds it runs clean
 * without lost replies: the paths they break run only after a command that never
 * answered.
 */
class LostReplyPlantedBugTests {

	private static final int MAX_SEEDS = 100;

	// A late attempt must meet a newer hold of its own thread, after its undo (a release
	// by its hold id) ran: rarer. The first seed that finds it is 1239: the live check
	// finds the newer hold's field gone from the lock hash.
	private static final int LATE_SEEDS = 400;

	/**
	 * {@code acquire.lua} without its take-over: a thread owner whose acquisition lost
	 * its reply, and whose next acquisition says it holds no handle on the lock
	 * ({@code ARGV[8] = '0'}), finds its own hold left in Redis and is refused as a
	 * self-deadlock instead of taking that hold over.
	 */
	@Test
	void findsAnAcquireThatNeverTakesAHoldLeftByALostReplyOver() {
		String script = "acquire.lua";
		String text = ScriptTexts.all().get(script);
		String target = "if ARGV[8] ~= '1' then";
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		assertFoundOnlyWithLostReplies(Map.of(script, text.replace(target, "if false then")), ClientBug.NONE);
	}

	/**
	 * A watchdog that takes a renewal without a reply as confirmed: the holder counts on
	 * a lease that Redis never set when the renewal never reached it.
	 */
	@Test
	void findsAWatchdogThatTakesAFailedRenewalAsConfirmed() {
		assertFoundOnlyWithLostReplies(Map.of(), ClientBug.FAILED_RENEWAL_CONFIRMS);
	}

	/**
	 * {@code acquire.lua} whose take-over ignores newer holds: a late attempt of a thread
	 * owner (its reply lost, run after the thread's next acquisition took the lock) takes
	 * the lock over from that newer hold, and the late attempt's undo then ends the lock
	 * under the thread ("A late attempt" in docs/design/waiting-and-hand-off.md). Only
	 * commands that run late ({@link Fault#LATE}) reach it.
	 */
	@Test
	void findsATakeOverThatEndsTheOwnersNewerHold() {
		String script = "acquire.lua";
		String text = ScriptTexts.all().get(script);
		String target = "take_over(KEYS[1], ARGV[2])";
		assertThat(text).as("the planted bug's target in %s", script).contains(target);
		assertFoundOnlyWith(Map.of(script, text.replace(target, "take_over(KEYS[1], '')")), ClientBug.NONE, Fault.LATE,
				LATE_SEEDS);
	}

	private static void assertFoundOnlyWithLostReplies(Map<String, String> scripts, ClientBug clientBug) {
		assertFoundOnlyWith(scripts, clientBug, Fault.CUT, MAX_SEEDS);
	}

	private static void assertFoundOnlyWith(Map<String, String> scripts, ClientBug clientBug, Fault fault,
			int maxSeeds) {
		Long found = null;
		String violation = null;
		// Replica checks came after these plants, and make a run that draws them another
		// run: they are searched for as they were found.
		EnumSet<Fault> faults = EnumSet.complementOf(EnumSet.of(Fault.REPLICAS));
		for (long seed = 1_000; seed < 1_000 + maxSeeds && found == null; seed++) {
			violation = new LockSimulation(seed, scripts, clientBug, faults).run(4, 25);
			found = (violation != null) ? seed : null;
		}
		assertThat(found).as("a violation within %d seeds", maxSeeds).isNotNull();
		FailureShrinker.Shrunk shrunk = FailureShrinker.shrink(found, scripts, clientBug, 4, 25, faults);
		assertThat(shrunk).as("seed %d shrunk", found).isNotNull();
		EnumSet<Fault> without = EnumSet.complementOf(EnumSet.of(fault, Fault.REPLICAS));
		@Nullable String clean = new LockSimulation(found, scripts, clientBug, without).run(4, 25);
		assertThat(clean).as("seed %d without %s", found, fault).isNull();
		System.out.println("planted bug reached by " + fault + " found: seed " + found + ", " + violation + "\n"
				+ shrunk.report());
	}

}
