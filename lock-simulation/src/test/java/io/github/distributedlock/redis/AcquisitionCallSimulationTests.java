package io.github.distributedlock.redis;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Runs the driver's {@code Acquisitions}, as both templates start every acquisition, in
 * the simulation ({@link AcquisitionCallRun}) on a fixed set of seeds, and shows that its
 * checks find a replica check that keeps what a cancel left it.
 * {@code -Dsimulation.seeds=N} runs N seeds (at least {@value #CI_SEEDS}) from 1000, or
 * from {@code -Dsimulation.from=F}; {@code -Dsimulation.seed=S} replays one and prints
 * its trace.
 */
class AcquisitionCallSimulationTests {

	private static final int CI_SEEDS = 150;

	private static final int CLIENTS = 3;

	private static final int CALLS = 12;

	// Within how many seeds the planted bug must be found.
	private static final int PLANTED_SEEDS = 60;

	@Test
	void shouldKeepEveryCallToItsPromises() {
		String replay = System.getProperty("simulation.seed", "");
		long from = replay.isBlank() ? Long.getLong("simulation.from", 1_000) : Long.parseLong(replay.trim());
		int seeds = replay.isBlank() ? Math.max(CI_SEEDS, Integer.getInteger("simulation.seeds", 0)) : 1;
		Map<String, Integer> counts = new TreeMap<>();
		Map<String, String> found = new TreeMap<>();
		long holds = 0;
		long steps = 0;
		for (long seed = from; seed < from + seeds; seed++) {
			AcquisitionCallRun run = new AcquisitionCallRun(seed, AcquisitionCallRun.Bug.NONE);
			String violation = run.run(CLIENTS, CALLS);
			if (!replay.isBlank()) {
				System.out.println(run.trace(Integer.MAX_VALUE));
			}
			if (violation != null) {
				fail("seed " + seed + ": " + violation + "\n" + run.trace(120));
			}
			run.counts().forEach((what, count) -> counts.merge(what, count, Integer::sum));
			run.found().forEach(found::putIfAbsent);
			holds += run.holds();
			steps += run.steps();
		}
		System.out.printf("acquisition call simulation: %d seeds, %d holds, %d events%n", seeds, holds, steps);
		counts.forEach((what, count) -> System.out.printf("  %s: %d%n", what, count));
		found.forEach((what, first) -> System.out.printf("  first %s: %s%n", what, first));
		if (replay.isBlank()) {
			// Not vacuous: each path is granted, cancels stop runs and replica checks,
			// and templates close on waiters, replica checks and renewed holds.
			assertThat(counts).as("what the calls did")
				.containsKeys("granted (one)", "granted (all at once)", "granted (all in order)",
						"refused by its replica check", "told its cancel",
						"cancels during the replica check that returned true",
						"cancels during the run that returned true", "cancels after the end that returned false",
						"subscribers that left during the run", "subscribers that left during the replica check",
						"settled now", "template closes waiting in a line (one)", "template closes during a run (one)",
						"template closes during a run (all in order)",
						"template closes waiting in a line (all at once)", "template closes during a replica check",
						"template closes while holding renewed locks",
						"told that the lock service is shut down after its template closed");
		}
	}

	/**
	 * Seeds past those that CI runs, where a close failed only the runs waiting in a
	 * line: a run whose first attempt was in flight was told its cancel after the call's
	 * bound (1576), and a multi-lock taken in order sent the attempt of its next lock
	 * after the close (1923).
	 */
	@Test
	void shouldFailEveryRunUnderWayWhenItsTemplateCloses() {
		for (long seed : new long[] { 1576, 1923 }) {
			AcquisitionCallRun run = new AcquisitionCallRun(seed, AcquisitionCallRun.Bug.NONE);
			String violation = run.run(CLIENTS, CALLS);
			assertThat(violation).as(() -> "seed " + seed + "\n" + run.trace(120)).isNull();
		}
	}

	/**
	 * A replica check that its caller cancels, and that then keeps what it checked
	 * instead of releasing it (a port that drops that release): nobody counts on the
	 * lock, so nothing overlaps, but it stays taken until its lease ends, which the
	 * oracle of orphaned holds sees.
	 */
	@Test
	void shouldFindACancelledReplicaCheckThatKeepsItsGrant() {
		String found = null;
		for (long seed = 1_000; seed < 1_000 + PLANTED_SEEDS && found == null; seed++) {
			String violation = new AcquisitionCallRun(seed, AcquisitionCallRun.Bug.CANCELLED_CHECK_KEEPS_GRANT)
				.run(CLIENTS, CALLS);
			found = (violation != null) ? "seed " + seed + ": " + violation : null;
		}
		assertThat(found).as("a violation within %d seeds", PLANTED_SEEDS)
			.isNotNull()
			.contains("its replica check ended without a grant to its caller");
		System.out.println("planted cancelled check that keeps its grant found: " + found);
	}

	/**
	 * A subscriber that leaves without its cancel reaching the call (as through a
	 * {@code Mono} without its cancel hook): the call goes on and what it wins reaches
	 * nobody, which the oracle of orphaned holds sees. The shipped
	 * {@code AcquisitionMono} with its cancel hook taken out fails the run that checks
	 * every call the same way.
	 */
	@Test
	void shouldFindASubscriberThatLeavesWithoutCancellingItsCall() {
		String found = null;
		for (long seed = 1_000; seed < 1_000 + PLANTED_SEEDS && found == null; seed++) {
			String violation = new AcquisitionCallRun(seed, AcquisitionCallRun.Bug.LEAVES_WITHOUT_CANCEL).run(CLIENTS,
					CALLS);
			found = (violation != null) ? "seed " + seed + ": " + violation : null;
		}
		assertThat(found).as("a violation within %d seeds", PLANTED_SEEDS).isNotNull().contains("stayed in Redis");
		System.out.println("planted subscriber that leaves without cancelling its call found: " + found);
	}

	/**
	 * A template whose close forgets its hold registry: the watchdog goes on renewing
	 * what the closed template's callers hold, which the check of what a closed client
	 * sends sees.
	 */
	@Test
	void shouldFindACloseThatLeavesRenewalsRunning() {
		String found = null;
		for (long seed = 1_000; seed < 1_000 + PLANTED_SEEDS && found == null; seed++) {
			String violation = new AcquisitionCallRun(seed, AcquisitionCallRun.Bug.RENEWS_AFTER_CLOSE).run(CLIENTS,
					CALLS);
			found = (violation != null) ? "seed " + seed + ": " + violation : null;
		}
		assertThat(found).as("a violation within %d seeds", PLANTED_SEEDS)
			.isNotNull()
			.contains("sent renew of")
			.contains("after its template closed");
		System.out.println("planted close that leaves renewals running found: " + found);
	}

}
