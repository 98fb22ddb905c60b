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

	private static void assertFoundOnlyWithLostReplies(Map<String, String> scripts, ClientBug clientBug) {
		Long found = null;
		String violation = null;
		for (long seed = 1_000; seed < 1_000 + MAX_SEEDS && found == null; seed++) {
			violation = new LockSimulation(seed, scripts, clientBug).run(4, 25);
			found = (violation != null) ? seed : null;
		}
		assertThat(found).as("a violation within %d seeds", MAX_SEEDS).isNotNull();
		FailureShrinker.Shrunk shrunk = FailureShrinker.shrink(found, scripts, clientBug, 4, 25);
		assertThat(shrunk).as("seed %d shrunk", found).isNotNull();
		EnumSet<Fault> withoutCuts = EnumSet.complementOf(EnumSet.of(Fault.CUT));
		@Nullable String without = new LockSimulation(found, scripts, clientBug, withoutCuts).run(4, 25);
		assertThat(without).as("seed %d without lost replies", found).isNull();
		System.out.println(
				"planted bug reached by lost replies found: seed " + found + ", " + violation + "\n" + shrunk.report());
	}

}
