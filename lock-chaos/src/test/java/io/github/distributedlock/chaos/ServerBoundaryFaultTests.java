package io.github.distributedlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.chaos.Boundaries.Point;
import io.github.distributedlock.chaos.Boundaries.ReleaseListener;
import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.test.RespConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import static io.github.distributedlock.chaos.BoundaryFaultTests.KEY;
import static io.github.distributedlock.chaos.BoundaryFaultTests.LEASE_MILLIS;
import static io.github.distributedlock.chaos.BoundaryFaultTests.LOCK_KEY;
import static io.github.distributedlock.chaos.BoundaryFaultTests.TIMEOUT_MILLIS;
import static io.github.distributedlock.chaos.BoundaryFaultTests.WAIT_MILLIS;
import static io.github.distributedlock.chaos.BoundaryFaultTests.constants;
import static io.github.distributedlock.chaos.BoundaryFaultTests.longestWait;
import static io.github.distributedlock.chaos.BoundaryFaultTests.passes;
import static io.github.distributedlock.chaos.HolderFaultTests.assertSafe;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The boundary faults of {@link BoundaryFaultTests} on the server's side: the server
 * stalled right after a release and while cohorts pass, around each constant; one custom
 * owner shared by several processes; and release messages lost, duplicated, delayed,
 * replayed and forged.
 */
@Execution(ExecutionMode.CONCURRENT)
class ServerBoundaryFaultTests {

	@Test
	void shouldKeepMutualExclusionWhenTheServerStallsRightAfterAReleaseAroundEachConstant() throws Exception {
		try (ChaosRun run = ChaosRun.standalone("boundary: server stalls right after a release",
				"--enable-debug-command", "yes")) {
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of(KEY), 1, LEASE_MILLIS,
					WAIT_MILLIS, 20, 60, TIMEOUT_MILLIS, 0, 1);
			// Heads that wait by pub/sub: a release tells them of the reservation.
			run.startWorkers(4, config);
			// The workers hear the release and answer it through their proxies: 2 ms more
			// each way, so that the stall,
			// sent straight to Redis, lands before the attempt of the waiter the lock was
			// reserved for.
			run.workers().forEach((worker) -> run.proxy(worker.name()).latency(Duration.ofMillis(2)));
			Map<String, Duration> pauses = new LinkedHashMap<>();
			pauses.put("command timeout", Duration.ofMillis(TIMEOUT_MILLIS));
			pauses.put("claim", ProtocolTimings.claim());
			List<String> reserved = new ArrayList<>();
			try (ReleaseListener listener = new ReleaseListener(run.redis(), List.of(LOCK_KEY));
					RespConnection stall = run.redis().connect()) {
				run.run(Duration.ofMillis(300));
				List<Point> all = new ArrayList<>(Boundaries.around(constants()));
				int debugSleeps = all.size();
				all.addAll(Boundaries.around(pauses));
				for (int i = 0; i < all.size(); i++) {
					Point point = all.get(i);
					boolean sleep = i < debugSleeps;
					String[] command = sleep
							? new String[] { "DEBUG", "SLEEP",
									String.format(Locale.ROOT, "%.3f", point.duration().toMillis() / 1000.0) }
							: new String[] { "CLIENT", "PAUSE", Long.toString(point.duration().toMillis()), "ALL" };
					CompletableFuture<Long> started = new CompletableFuture<>();
					listener.onMessage((message) -> {
						if (message.isHandOff() && !started.isDone()) {
							long now = System.nanoTime();
							stall.send(command);
							started.complete(now);
						}
					});
					long start = started.get(20, TimeUnit.SECONDS);
					listener.onMessage(null);
					stall.awaitNext();
					long end = sleep ? System.nanoTime() : start + point.duration().toNanos();
					TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
					// Was the reservation still there when Redis woke? (After the claim
					// it cannot be.)
					// ('reserved' = '' is none: a hold taken from a reservation keeps the
					// field.)
					Object handoff = stall.command("HGET", LOCK_KEY, "reserved");
					if (handoff != null && !"".equals(handoff)) {
						reserved.add(point.kind(sleep ? "DEBUG SLEEP" : "CLIENT PAUSE"));
					}
					run.fault(Fault.of(
							point.kind(sleep ? "DEBUG SLEEP after a release" : "CLIENT PAUSE ALL after a release"),
							start, end));
					run.run(Duration.ofMillis(300));
				}
			}
			run.run(Duration.ofMillis(1000));
			CheckReport report = run.finish();
			ChaosSummary.note("Boundaries", "- Server stalls started the moment a hand-off message was published ("
					+ report.faultCount() + " stalls): the lock was still reserved when Redis woke after "
					+ (reserved.isEmpty() ? "none" : String.join("; ", reserved)) + "; " + report.indeterminate()
					+ " acquisitions failed with a timeout, " + report.timeouts() + " gave up.");
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.timeouts()).as("waiters that gave up").isZero();
		}
	}

	/**
	 * The server stalled, with {@code DEBUG SLEEP} and {@code CLIENT PAUSE ALL}, while
	 * workers pass the lock in memory (docs/design/cohorting.md), around the cohort time
	 * limit, the command timeout and the lease: a pass needs no command, but the hold
	 * that opened the cohort, its lease and the release that ends it all go through the
	 * stalled server, and a member's deadline is the opening grant's lease.
	 */
	@Test
	void shouldKeepMutualExclusionWhenTheServerStallsWhileCohortsPassAroundEachConstant() throws Exception {
		stallWhileCohortsPass("boundary: server stalls while cohorts pass", "Server stalls while cohorts pass", 16,
				LEASE_MILLIS / 3, 20, 60);
	}

	/**
	 * As above, with the starter's default cohorts (up to 64 holders within 20 ms of the
	 * hold taken from Redis) and critical sections of 1 to 15 ms, under which those
	 * limits pass holds.
	 */
	@Test
	void shouldKeepMutualExclusionWhenTheServerStallsWhileDefaultCohortsOfShortHoldsPass() throws Exception {
		stallWhileCohortsPass("boundary: server stalls while default cohorts of short holds pass",
				"Server stalls while default cohorts of short holds pass", WorkerConfig.SWITCHED_COHORT_HOLDERS,
				WorkerConfig.SWITCHED_COHORT_MILLIS, 1, 15);
	}

	private static void stallWhileCohortsPass(String name, String summary, int cohortHolders, long cohortMillis,
			long holdMinMillis, long holdMaxMillis) throws Exception {
		try (ChaosRun run = ChaosRun.standalone(name, "--enable-debug-command", "yes")) {
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of(KEY), 3, LEASE_MILLIS,
					WAIT_MILLIS, holdMinMillis, holdMaxMillis, TIMEOUT_MILLIS, 0, 1)
				.withCohorts(cohortHolders, cohortMillis);
			run.startWorkers(3, config);
			run.run(Duration.ofMillis(300));
			Map<String, Duration> constants = new LinkedHashMap<>();
			constants.put("cohort time limit", Duration.ofMillis(cohortMillis));
			constants.put("command timeout", Duration.ofMillis(TIMEOUT_MILLIS));
			constants.put("lease", Duration.ofMillis(LEASE_MILLIS));
			List<Point> points = Boundaries.around(constants);
			try (RespConnection stall = run.redis().connect()) {
				for (boolean sleep : new boolean[] { true, false }) {
					for (Point point : points) {
						run.awaitAcquisition((event) -> true, Duration.ofSeconds(20));
						long start = System.nanoTime();
						if (sleep) {
							stall.command("DEBUG", "SLEEP",
									String.format(Locale.ROOT, "%.3f", point.duration().toMillis() / 1000.0));
						}
						else {
							stall.command("CLIENT", "PAUSE", Long.toString(point.duration().toMillis()), "ALL");
							TimeUnit.NANOSECONDS.sleep(start + point.duration().toNanos() - System.nanoTime());
						}
						run.fault(Fault.of(point.kind(sleep ? "DEBUG SLEEP, cohorts" : "CLIENT PAUSE ALL, cohorts"),
								start, System.nanoTime()));
						run.run(Duration.ofMillis(400));
					}
				}
			}
			run.run(Duration.ofMillis(1000));
			CheckReport report = run.finish();
			long passes = passes(run.history(), cohortHolders);
			ChaosSummary.note("Boundaries",
					"- " + summary + " (" + report.faultCount() + " stalls): " + passes + " of " + report.acquisitions()
							+ " holds were passed in memory; " + report.indeterminate()
							+ " acquisitions failed with a timeout, " + report.timeouts() + " gave up.");
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.timeouts()).as("waiters that gave up").isZero();
			assertThat(passes).as("holds passed in memory").isPositive();
		}
	}

	@Test
	void shouldTreatACustomOwnerSharedAcrossProcessesAsOneHolder() throws Exception {
		try (ChaosRun run = ChaosRun.standalone("boundary: custom owners shared across processes")) {
			run.monitor();
			long lease = 3000;
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), List.of("k0", "k1"), 2, lease,
					WAIT_MILLIS, 5, 30, 1000, 0, 1);
			run.startWorkers(2, config.withOwner("job-a"));
			run.startWorkers(2, config.withOwner("job-b"));
			run.startWorkers(1, config);
			run.run(Duration.ofSeconds(3));
			// A holder of a shared owner frozen past its lease: its hold must not survive
			// in the count, and the other
			// process of that owner must not be able to release somebody else's lock with
			// it.
			WorkerProcess victim = run.worker("w1");
			Event held = run.awaitAcquisition((event) -> event.worker().equals(victim.name()), Duration.ofSeconds(20));
			long paused = System.nanoTime();
			victim.pause();
			Point point = Boundaries.around("lease", Duration.ofMillis(lease)).get(2);
			TimeUnit.NANOSECONDS.sleep(paused + point.duration().toNanos() - System.nanoTime());
			long thawed = System.nanoTime();
			victim.resume();
			run.fault(Fault.onWorker(point.kind("SIGSTOP holder of a shared owner"), paused, thawed, victim.name()));
			run.run(Duration.ofSeconds(3));
			CheckReport report = run.finish();
			assertSafe(report);
			assertThat(report.livenessViolations()).isEmpty();
			assertThat(report.overlapsSameOwner()).as("holds of one owner in two processes at once").isPositive();
			assertThat(run.hold(held.holdId()).okNanos()).isLessThan(paused);
			// Everyone released: nothing may be left behind, except a hold whose acquire
			// reply was lost, until its
			// lease ends.
			long indeterminate = report.indeterminate();
			try (RespConnection redis = run.redis().connect()) {
				for (String key : config.keys()) {
					Object exists = redis.command("EXISTS", RedisMonitor.lockKey(key));
					if (indeterminate == 0) {
						assertThat(exists).as("%s after every worker released", key).isEqualTo(0L);
					}
					else {
						assertThat((Long) redis.command("PTTL", RedisMonitor.lockKey(key))).isLessThanOrEqualTo(lease);
					}
				}
			}
			ChaosSummary.note("Boundaries",
					"- Custom owners `job-a` and `job-b`, each shared by two worker JVMs (2 "
							+ "threads each), and one JVM of thread owners: " + report.overlapsSameOwner()
							+ " overlapping holds " + "within one owner (counted in Redis); across owners "
							+ report.exclusionViolations().size() + " violations and "
							+ (report.overlapsByExpiry() + report.overlapsByRedisClock())
							+ " overlaps after a provably expired lease; no lock left behind after the last release.");
		}
	}

	@Test
	void shouldStaySafeAndLiveWhenReleaseMessagesAreLostDuplicatedDelayedReplayedAndForged() throws Exception {
		try (ChaosRun run = ChaosRun
			.standalone("boundary: release messages lost, duplicated, delayed, replayed, forged")) {
			List<String> keys = List.of("k0", "k1");
			List<String> lockKeys = keys.stream().map(RedisMonitor::lockKey).toList();
			WorkerConfig config = new WorkerConfig("w", "", run.store().port(), keys, 1, LEASE_MILLIS, WAIT_MILLIS, 10,
					40, TIMEOUT_MILLIS, 0, 1);
			run.startWorkers(4, config);
			Map<String, AtomicLong> sent = new LinkedHashMap<>();
			try (ReleaseListener listener = new ReleaseListener(run.redis(), lockKeys);
					RespConnection nemesis = run.redis().connect()) {
				run.run(Duration.ofMillis(500));
				Duration phase = Duration.ofSeconds(2);
				Random random = new Random(7);

				// Duplicated: every hand-off message published twice more, at once (once:
				// the listener hears its own
				// copies too).
				AtomicLong duplicates = sent.computeIfAbsent("duplicated", (k) -> new AtomicLong());
				java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
				long start = System.nanoTime();
				listener.onMessage((message) -> {
					if (message.isHandOff() && seen.add(message.channel() + " " + message.payload())) {
						synchronized (nemesis) {
							nemesis.command("PUBLISH", message.channel(), message.payload());
							nemesis.command("PUBLISH", message.channel(), message.payload());
						}
						duplicates.addAndGet(2);
					}
				});
				run.run(phase);
				listener.onMessage(null);
				run.fault(Fault.of("release messages duplicated", start, System.nanoTime()));

				// Replayed: old hand-off messages, captured at least 300 ms earlier,
				// published again.
				AtomicLong replays = sent.computeIfAbsent("replayed", (k) -> new AtomicLong());
				start = System.nanoTime();
				while (System.nanoTime() - start < phase.toNanos()) {
					long old = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(300);
					List<ReleaseListener.Message> captured = listener.messages()
						.stream()
						.filter((message) -> message.isHandOff() && message.nanos() < old)
						.toList();
					if (!captured.isEmpty()) {
						ReleaseListener.Message message = captured.get(random.nextInt(captured.size()));
						synchronized (nemesis) {
							nemesis.command("PUBLISH", message.channel(), message.payload());
						}
						replays.incrementAndGet();
					}
					Thread.sleep(20);
				}
				run.fault(Fault.of("release messages replayed", start, System.nanoTime()));

				// Forged: a hand-off message for every live request, whether or not the
				// lock is reserved for it.
				AtomicLong forged = sent.computeIfAbsent("forged", (k) -> new AtomicLong());
				start = System.nanoTime();
				while (System.nanoTime() - start < phase.toNanos()) {
					for (String lockKey : lockKeys) {
						synchronized (nemesis) {
							Object requests = nemesis.command("ZRANGE", ProtocolTimings.requestsKey(lockKey), "0",
									"-1");
							for (Object request : (List<?>) requests) {
								nemesis.command("PUBLISH", ProtocolTimings.releaseChannel(lockKey),
										ProtocolTimings.handOffMessagePrefix() + request);
								forged.incrementAndGet();
							}
						}
					}
					Thread.sleep(20);
				}
				run.fault(Fault.of("hand-off messages forged for live requests", start, System.nanoTime()));

				// Lost: the workers' pub/sub connections killed the moment a hand-off is
				// published.
				AtomicInteger kills = new AtomicInteger();
				AtomicLong lastKill = new AtomicLong();
				long listenerId = listener.clientId();
				start = System.nanoTime();
				listener.onMessage((message) -> {
					if (message.isHandOff()
							&& System.nanoTime() - lastKill.get() > TimeUnit.MILLISECONDS.toNanos(150)) {
						lastKill.set(System.nanoTime());
						synchronized (nemesis) {
							String clients = (String) nemesis.command("CLIENT", "LIST", "TYPE", "pubsub");
							for (String line : clients.split("\n")) {
								if (line.startsWith("id=")) {
									String id = line.substring(3, line.indexOf(' '));
									if (Long.parseLong(id) != listenerId) {
										nemesis.command("CLIENT", "KILL", "ID", id);
										kills.incrementAndGet();
									}
								}
							}
						}
					}
				});
				run.run(phase);
				listener.onMessage(null);
				run.fault(Fault.of("pub/sub connections killed at hand-off", start, System.nanoTime()));

				// Lost: each worker's pub/sub connection dropped at its proxy, with
				// whatever it had not delivered.
				start = System.nanoTime();
				int drops = 0;
				while (System.nanoTime() - start < phase.toNanos()) {
					for (WorkerProcess worker : run.workers()) {
						drops += (run.proxy(worker.name()).dropPubSubConnections() > 0) ? 1 : 0;
					}
					Thread.sleep(250);
				}
				run.fault(Fault.of("pub/sub connections dropped at the proxy", start, System.nanoTime()));

				// Delayed: every release message reaches the workers just before, at and
				// just after the claim lapses.
				for (Point point : Boundaries.around("claim", ProtocolTimings.claim())) {
					start = System.nanoTime();
					run.workers().forEach((worker) -> run.proxy(worker.name()).pubSubLatency(point.duration()));
					run.run(Duration.ofSeconds(3));
					run.workers().forEach((worker) -> run.proxy(worker.name()).pubSubLatency(Duration.ZERO));
					run.fault(Fault.of(point.kind("release messages delayed"), start, System.nanoTime()));
					run.run(Duration.ofMillis(300));
				}
				// Long enough for recovery to be seen: a message sent as the last delay
				// was lifted still
				// arrives up to claim + 100 ms later, after the reservation it names has
				// lapsed, and the
				// waiters then try when the claim they were told of ends. 1.5 s was too
				// short for that
				// (a clean-clone CI run: "key k1 was never acquired again after the fault
				// ended").
				run.run(ProtocolTimings.claim().multipliedBy(3));
				CheckReport report = run.finish();
				ChaosSummary.note("Boundaries", "- Release-channel nemesis: " + duplicates + " duplicated, " + replays
						+ " replayed and " + forged + " forged hand-off messages published, " + kills
						+ " pub/sub connections killed at hand-off, " + drops + " dropped at the proxies, and every "
						+ "message delayed by the claim ± " + Boundaries.MARGIN.toMillis() + " ms for 3 s each: "
						+ report.acquisitions() + " acquisitions, " + report.timeouts() + " gave up, longest wait "
						+ longestWait(run.history()) + " ms.");
				assertSafe(report);
				assertThat(report.livenessViolations()).isEmpty();
				assertThat(report.timeouts()).as("waiters that gave up").isZero();
				assertThat(duplicates.get() + replays.get() + forged.get()).isPositive();
				assertThat(kills.get()).as("pub/sub connections killed").isPositive();
			}
		}
	}

}
