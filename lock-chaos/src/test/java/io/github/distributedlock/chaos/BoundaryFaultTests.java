package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.chaos.Boundaries.Point;
import io.github.distributedlock.chaos.Boundaries.Waiter;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults whose durations come from the wait path's own constants
 * (docs/design/waiting-and-hand-off.md, "Timing constants"), each just below, at and just
 * above the constant: the claim of a reservation, the lease, the watchdog period and the
 * two thirds of a lease a renewal has to arrive, and the command timeout. Here, waiters
 * frozen across a release and holders frozen in their critical section; the server's
 * stalls, shared custom owners and release messages are {@link ServerBoundaryFaultTests}
 * (a class of its own, so that the two run in two test JVMs side by side; each runs its
 * tests two at a time). The refile interval and the request line lifetime (15 s, 30 s)
 * are covered by {@link LongBoundaryTests}.
 * <p>
 * Leases and command timeouts are short and distinct from the claim, so that every
 * constant is its own boundary.
 */
@Execution(ExecutionMode.CONCURRENT)
class BoundaryFaultTests {

	static final String KEY = "k0";

	static final String LOCK_KEY = RedisMonitor.lockKey(KEY);

	/** The workers' lease: shorter than the claim. */
	static final long LEASE_MILLIS = 1200;

	/** The workers' command timeout: shorter than the lease. */
	static final long TIMEOUT_MILLIS = 700;

	/**
	 * Long enough for a waiter to outlive every fault of these tests: no waiter should
	 * ever time out.
	 */
	static final long WAIT_MILLIS = 20_000;

	@Test
	void shouldKeepMutualExclusionWhenAWaiterIsFrozenAcrossAReleaseAroundEachConstant() throws Exception {
		freezeWaiters("boundary: SIGSTOP waiter across a release", LEASE_MILLIS, TIMEOUT_MILLIS, constants());
	}

	/**
	 * Freeze, for each duration, the worker whose request the next release reserves the
	 * lock for, across that release; one thread per worker on one key, so that every
	 * worker but the holder waits in the line.
	 */
	static void freezeWaiters(String name, long leaseMillis, long timeoutMillis, Map<String, Duration> constants)
			throws Exception {
		freezeWaiters(name, leaseMillis, timeoutMillis, Boundaries.around(constants));
	}

	/**
	 * Freeze waiters as above, at each point: the release reserves the lock for the
	 * frozen waiter's request, and the reservation waits for it at most a claim.
	 */
	static void freezeWaiters(String name, long leaseMillis, long timeoutMillis, List<Point> points) throws Exception {
		try (ChaosRun run = ChaosRun.standalone(name)) {
			long longest = points.stream().mapToLong((point) -> point.duration().toMillis()).max().orElseThrow();
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of(KEY), 1, leaseMillis,
					Math.max(WAIT_MILLIS, 2 * longest + 10_000), 40, 120, timeoutMillis, 0, 1);
			run.startWorkers(3, config);
			int reserved = 0;
			int faults = 0;
			try (RespConnection redis = run.redis().connect()) {
				run.run(Duration.ofMillis(300));
				for (Point point : points) {
					Waiter waiter = Boundaries.oldestWaiter(run, redis, LOCK_KEY, Duration.ofSeconds(15));
					long paused = System.nanoTime();
					waiter.worker().pause();
					boolean reservedForIt = false;
					long until = paused + point.duration().toNanos();
					for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
						reservedForIt |= waiter.request().equals(redis.command("HGET", LOCK_KEY, "reserved"));
						TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
					}
					int mark = run.history().size();
					long thawed = System.nanoTime();
					waiter.worker().resume();
					run.fault(Fault.onWorker(point.kind("SIGSTOP waiter"), paused, thawed, waiter.worker().name()));
					faults++;
					reserved += reservedForIt ? 1 : 0;
					// Before the next freeze, which could otherwise pick the same waiter
					// again before it got the lock.
					run.awaitAcquisitionSince(mark, (event) -> event.worker().equals(waiter.worker().name()),
							Duration.ofSeconds(20));
					run.run(Duration.ofMillis(200));
				}
			}
			run.run(Duration.ofMillis(1000));
			CheckReport report = run.finish();
			ChaosSummary.note("Boundaries",
					"- " + name + ": the lock was reserved for the frozen waiter's request during " + reserved + " of "
							+ faults + " freezes; " + report.timeouts() + " acquisitions timed out.");
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.timeouts()).as("waiters that gave up").isZero();
			assertThat(reserved).as("freezes during which the lock was reserved for the frozen waiter").isPositive();
		}
	}

	@Test
	void shouldKeepMutualExclusionWhenAHolderIsFrozenAroundEachConstant() throws Exception {
		freezeHolders("boundary: SIGSTOP holder", LEASE_MILLIS, TIMEOUT_MILLIS, false, constants());
	}

	/**
	 * Holders frozen as above, each worker's three threads passing the lock in memory
	 * while it holds it (docs/design/cohorting.md): the whole JVM freezes, the cohort's
	 * holder and its local waiters with it.
	 */
	@Test
	void shouldKeepMutualExclusionWhenACohortHolderIsFrozenAroundEachConstant() throws Exception {
		Map<String, Duration> constants = constants();
		constants.put("cohort time limit (lease/3)", Duration.ofMillis(LEASE_MILLIS / 3));
		freezeHolders("boundary: SIGSTOP cohort holder", LEASE_MILLIS, TIMEOUT_MILLIS, false, constants, 3, 16);
	}

	/**
	 * Workers frozen around each constant while they hold the lock in a cohort with the
	 * starter's default limits (up to 64 holders within 20 ms of the hold taken from
	 * Redis), the 20 ms among the constants. Critical sections last 1 to 15 ms, so that
	 * these limits pass holds: each worker's four threads pass the lock among them, and
	 * the whole JVM freezes with them.
	 */
	@Test
	void shouldKeepMutualExclusionWhenADefaultCohortOfShortHoldsIsFrozenAroundEachConstant() throws Exception {
		String name = "boundary: SIGSTOP default cohort of short holds";
		Map<String, Duration> constants = constants();
		constants.put("default cohort time limit", Duration.ofMillis(WorkerConfig.SWITCHED_COHORT_MILLIS));
		try (ChaosRun run = ChaosRun.standalone(name)) {
			long longest = constants.values().stream().mapToLong(Duration::toMillis).max().orElseThrow();
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of(KEY), 4, LEASE_MILLIS,
					Math.max(WAIT_MILLIS, 2 * longest + 10_000), 1, 15, TIMEOUT_MILLIS, 0, 1)
				.withCohorts(WorkerConfig.SWITCHED_COHORT_HOLDERS, WorkerConfig.SWITCHED_COHORT_MILLIS);
			run.startWorkers(3, config);
			run.run(Duration.ofMillis(300));
			int holding = 0;
			List<Point> points = Boundaries.around(constants);
			for (int i = 0; i < points.size(); i++) {
				Point point = points.get(i);
				WorkerProcess victim = run.workers().get(i % run.workers().size());
				run.awaitAcquisition((event) -> event.worker().equals(victim.name()), Duration.ofSeconds(20));
				WorkerProcess.Freeze freeze = victim.freezeFor(point.duration());
				long paused = freeze.pausedNanos();
				long thawed = freeze.thawedNanos();
				run.run(Duration.ofMillis(400));
				String kind = point.kind("SIGSTOP cohort holder");
				// The sections are shorter than the way from the acquisition's line to
				// the freeze: it lands in a section of whichever thread holds the lock
				// then, if any.
				Hold frozen = run.history()
					.holds()
					.stream()
					.filter((hold) -> hold.worker().equals(victim.name()) && hold.okNanos() < paused
							&& hold.endNanos() > paused)
					.findFirst()
					.orElse(null);
				if (frozen != null) {
					run.fault(Fault.onHold(kind, paused, thawed, frozen.holdId()));
					holding++;
				}
				else {
					run.fault(Fault.onWorker(kind, paused, thawed, victim.name()));
				}
			}
			run.run(Duration.ofMillis(1000));
			CheckReport report = run.finish();
			long passes = passes(run.history(), WorkerConfig.SWITCHED_COHORT_HOLDERS);
			ChaosSummary.note("Boundaries",
					"- " + name + ": " + holding + " of " + points.size()
							+ " freezes landed while the worker held the lock; " + passes + " of "
							+ report.acquisitions() + " holds were passed in memory.");
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(passes).as("holds passed in memory").isPositive();
			assertThat(holding).as("freezes while the frozen worker held the lock").isPositive();
		}
	}

	@Test
	void shouldKeepMutualExclusionWhenARenewedHolderIsFrozenAroundTheWatchdogPeriod() throws Exception {
		Duration lease = Duration.ofMillis(1500);
		Map<String, Duration> constants = new LinkedHashMap<>();
		constants.put("watchdog period (lease/3)", ProtocolTimings.watchdogPeriod(lease));
		constants.put("renewal grace (2/3 lease)", ProtocolTimings.watchdogGrace(lease));
		constants.put("lease", lease);
		freezeHolders("boundary: SIGSTOP holder renewed by the watchdog", lease.toMillis(), TIMEOUT_MILLIS, true,
				constants);
	}

	/**
	 * Freeze, for each duration, a worker right after it acquired, so that the freeze
	 * lands in its critical section. Renewed leases are judged by Redis's record of the
	 * expiries it set ({@link RedisMonitor}).
	 */
	static void freezeHolders(String name, long leaseMillis, long timeoutMillis, boolean autoRenew,
			Map<String, Duration> constants) throws Exception {
		freezeHolders(name, leaseMillis, timeoutMillis, autoRenew, constants, 1, 1);
	}

	/**
	 * Freeze holders as above, with {@code threads} threads per worker, passing holds in
	 * memory in cohorts of up to {@code cohortHolders} (1 for none).
	 */
	static void freezeHolders(String name, long leaseMillis, long timeoutMillis, boolean autoRenew,
			Map<String, Duration> constants, int threads, int cohortHolders) throws Exception {
		try (ChaosRun run = ChaosRun.standalone(name)) {
			if (autoRenew) {
				run.monitor();
			}
			long longest = constants.values().stream().mapToLong(Duration::toMillis).max().orElseThrow();
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of(KEY), threads, leaseMillis,
					Math.max(WAIT_MILLIS, 2 * longest + 10_000), 150, 300, timeoutMillis, 0, 1);
			if (autoRenew) {
				config = config.withAutoRenew();
			}
			if (cohortHolders > 1) {
				config = config.withCohorts(cohortHolders, leaseMillis / 3);
			}
			run.startWorkers(3, config);
			run.run(Duration.ofMillis(300));
			int inside = 0;
			int lost = 0;
			List<Point> points = Boundaries.around(constants);
			for (int i = 0; i < points.size(); i++) {
				Point point = points.get(i);
				WorkerProcess victim = run.workers().get(i % run.workers().size());
				Event held = run.awaitAcquisition((event) -> event.worker().equals(victim.name()),
						Duration.ofSeconds(20));
				WorkerProcess.Freeze freeze = victim.freezeFor(point.duration());
				long paused = freeze.pausedNanos();
				long thawed = freeze.thawedNanos();
				run.run(Duration.ofMillis(400));
				Hold hold = run.hold(held.holdId());
				String kind = point.kind(autoRenew ? "SIGSTOP renewed holder" : "SIGSTOP holder");
				if (!autoRenew && hold.okNanos() < paused && hold.endNanos() > paused) {
					run.fault(Fault.onHold(kind, paused, thawed, held.holdId()));
				}
				else {
					run.fault(Fault.onWorker(kind, paused, thawed, victim.name()));
				}
				if (hold.okNanos() < paused && hold.endNanos() > paused) {
					inside++;
				}
				if (Event.FAIL.equals(hold.release())) {
					lost++;
				}
			}
			run.run(Duration.ofMillis(1000));
			CheckReport report = run.finish();
			ChaosSummary.note("Boundaries",
					"- " + name + ": " + inside + " of " + points.size() + " freezes landed inside a critical section; "
							+ lost + " of those holders found their lease " + "lost at release"
							+ (autoRenew ? " (the others' watchdog renewed in time)" : "") + ".");
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(inside).as("freezes inside a critical section").isGreaterThanOrEqualTo(points.size() - 2);
			if (cohortHolders > 1) {
				assertThat(passes(run.history(), cohortHolders)).as("holds passed in memory").isPositive();
			}
		}
	}

	/**
	 * Return how many holds a cohort passed in memory: each shows a token less than
	 * {@code cohortHolders} above another hold of its worker and key (Redis's tokens are
	 * its clock's microseconds, at least a round trip apart).
	 */
	static long passes(History history, int cohortHolders) {
		List<Hold> holds = history.holds();
		return holds.stream()
			.filter((hold) -> holds.stream()
				.anyMatch((other) -> other.worker().equals(hold.worker()) && other.key().equals(hold.key())
						&& hold.token() > other.token() && hold.token() - other.token() < cohortHolders))
			.count();
	}

	/**
	 * Return the workers' command timeout, a waiter's retry (half the claim), the lease
	 * and the claim: the constants most faults here are timed around.
	 */
	static Map<String, Duration> constants() {
		Map<String, Duration> constants = new LinkedHashMap<>();
		constants.put("command timeout", Duration.ofMillis(TIMEOUT_MILLIS));
		constants.put("retry (half the claim)", ProtocolTimings.retry());
		constants.put("lease", Duration.ofMillis(LEASE_MILLIS));
		constants.put("claim", ProtocolTimings.claim());
		return constants;
	}

	/**
	 * Return the longest time an acquisition took to succeed, in ms.
	 */
	static long longestWait(History history) {
		return history.holds()
			.stream()
			.mapToLong((hold) -> TimeUnit.NANOSECONDS.toMillis(hold.okNanos() - hold.invokeNanos()))
			.max()
			.orElse(0);
	}

}
