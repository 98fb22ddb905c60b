package io.github.distributedlock.redis;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.distributedlock.redis.LockSimulation.Fault;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seed is a run: the same seed runs the same events in the same order, so that a
 * failure replays, and shrinks ({@link FailureShrinker}), to the run that failed. Nothing
 * the engine does may depend on what differs between two runs in one JVM, such as the
 * identity hashes of its objects (the watchdog once renewed a multi-lock's holds in that
 * order).
 */
class SeedReplayTests {

	private static final long FROM = 1_000;

	private static final int SEEDS = 40;

	@Test
	void shouldRunTheSameEventsTwiceForEachSeed() {
		for (long seed = FROM; seed < FROM + SEEDS; seed++) {
			assertSame(seed, events(seed), events(seed));
		}
	}

	@Test
	void shouldRunTheSameCohortEventsTwiceForEachSeed() {
		Set<Fault> faults = EnumSet.of(Fault.PAUSE, Fault.RESEND, Fault.MESSAGE, Fault.STALL);
		for (long seed = FROM; seed < FROM + SEEDS; seed++) {
			assertSame(seed, cohortEvents(seed, faults), cohortEvents(seed, faults));
		}
	}

	@Test
	void shouldRunTheSameAcquisitionCallEventsTwiceForEachSeed() {
		for (long seed = FROM; seed < FROM + SEEDS; seed++) {
			assertSame(seed, acquisitionCallEvents(seed), acquisitionCallEvents(seed));
		}
	}

	private static List<String> events(long seed) {
		LockSimulation simulation = new LockSimulation(seed, Map.of(), LockSimulation.ClientBug.NONE);
		simulation.run(4, 25);
		return simulation.events();
	}

	private static List<String> cohortEvents(long seed, Set<Fault> faults) {
		CohortRun run = new CohortRun(seed, Map.of(), faults, null);
		run.run(20);
		return List.of(run.trace(Integer.MAX_VALUE).split("\n"));
	}

	private static List<String> acquisitionCallEvents(long seed) {
		AcquisitionCallRun run = new AcquisitionCallRun(seed, AcquisitionCallRun.Bug.NONE);
		run.run(3, 12);
		return List.of(run.trace(Integer.MAX_VALUE).split("\n"));
	}

	private static void assertSame(long seed, List<String> first, List<String> again) {
		int at = 0;
		while (at < Math.min(first.size(), again.size()) && first.get(at).equals(again.get(at))) {
			at++;
		}
		int from = Math.max(0, at - 3);
		String differs = "seed " + seed + " run again, from event " + at + ":\n"
				+ String.join("\n", again.subList(from, Math.min(again.size(), at + 3))) + "\nthe first time:\n"
				+ String.join("\n", first.subList(from, Math.min(first.size(), at + 3)));
		assertThat(again).as(differs).isEqualTo(first);
	}

}
