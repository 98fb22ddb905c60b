package io.github.distributedlock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.benchmark.report.RedisCost;
import io.github.distributedlock.benchmark.report.WaitersResult;
import io.github.distributedlock.benchmark.worker.Waiters;

/**
 * Scenario 5: thousands of threads in two fresh processes (virtual threads on JDK 25
 * where installed) wait on hundreds of keys that a blocker holds; then the blocker lets
 * go and they drain. The floor is left out: its only way to wait is spinning, which with
 * thousands of waiters would measure a saturated Redis.
 */
final class WaitersScenario {

	static final int PROCESSES = 2;

	private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(120);

	private static final long BLOCKER_LEASE_MILLIS = 300_000;

	private WaitersScenario() {
	}

	static List<WaitersResult> run(BenchmarkRun run) {
		List<Library> libraries = Library.compared().stream().filter((l) -> l != Library.FLOOR).toList();
		// Fresh JVMs for every library, started at once: until told to wait they hold no
		// client and no connection.
		List<WorkerProcess> all = run.startWorkers(run.settings().waiterJava(), PROCESSES * libraries.size(), "1g");
		try {
			List<WaitersResult> results = new ArrayList<>();
			for (int i = 0; i < libraries.size(); i++) {
				List<WorkerProcess> waiters = all.subList(i * PROCESSES, (i + 1) * PROCESSES);
				results.add(run(run, libraries.get(i), waiters));
				waiters.forEach(WorkerProcess::close);
				// Let Redis see those connections go before the next library's baseline.
				sleep(Duration.ofMillis(300));
			}
			return results;
		}
		finally {
			all.forEach(WorkerProcess::close);
		}
	}

	private static WaitersResult run(BenchmarkRun run, Library library, List<WorkerProcess> waiters) {
		BenchmarkSettings settings = run.settings();
		WorkerProcess blocker = run.pool(1).get(0);
		String prefix = library.id() + "-waiters";
		run.redis().flushAll();
		RedisUsage start = run.usage();
		blocker.send(String.join(" ", "BLOCK", library.id(), prefix, Integer.toString(settings.waiterKeys()),
				Long.toString(BLOCKER_LEASE_MILLIS), Integer.toString(blocker.id())));
		blocker.await("BLOCKED", REPLY_TIMEOUT);
		RedisSnapshot before = RedisSnapshot.take(run.redis());
		return drain(run, library, blocker, waiters, before, start);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	private static WaitersResult drain(BenchmarkRun run, Library library, WorkerProcess blocker,
			List<WorkerProcess> waiters, RedisSnapshot before, RedisUsage start) {
		BenchmarkSettings settings = run.settings();
		List<Path> files = startWaiting(run, library, waiters);
		WaitingFigures waiting = new WaitingFigures();
		for (WorkerProcess waiter : waiters) {
			waiting.add(waiter.await("WAITING", REPLY_TIMEOUT));
		}
		RedisSnapshot subscribed = RedisSnapshot.take(run.redis()).minus(before);
		RedisUsage waitingUsage = run.usage().minus(start);
		run.redis().resetStats();
		RedisUsage draining = run.usage();
		Path blockerFile = run.workDirectory().resolve("blocker-" + library.id() + ".bin");
		blocker.send("UNBLOCK " + blockerFile);
		long firstRelease = Long.parseLong(blocker.await("UNBLOCKED", REPLY_TIMEOUT)[0]);
		long leftLocked = leftLocked(run, library, settings);
		DrainedFigures drained = new DrainedFigures();
		for (WorkerProcess waiter : waiters) {
			drained.add(waiter.await("DRAINED", settings.waiterWait().multipliedBy(2).plus(REPLY_TIMEOUT)));
		}
		Map<String, Long> commands = run.serverCommands();
		RedisUsage end = run.usage();
		List<Acquisition> holds = new ArrayList<>(AcquisitionFile.read(blockerFile));
		files.forEach((file) -> holds.addAll(AcquisitionFile.read(file)));
		int total = settings.waitersPerProcess() * waiters.size();
		WaitersResult result = new WaitersResult(library, waiters.get(0).javaVersion(), waiting.virtual, PROCESSES,
				settings.waiterWait().toSeconds(), total, settings.waiterKeys(), waiting.heapDelta / total,
				waiting.maxRss, drained.peakThreads, subscribed.connections(), subscribed.channels(),
				subscribed.subscriptions(), subscribed.patterns(), (drained.last - firstRelease) / 1e6,
				drained.acquisitions, drained.timeouts, drained.errors, leftLocked,
				AcquisitionAnalysis.handoffs(holds).overlaps(),
				cost(settings, drained.acquisitions, commands, waitingUsage, end.minus(draining), end.minus(start)));
		Progress.report("many waiters", library,
				String.format(
						"%d waiters, %d B heap each, done in %.0f ms, %d timeouts, %d connections, "
								+ "%d subscriptions",
						total, result.heapPerWaiterBytes(), result.drainMillis(), result.timeouts(),
						result.redisConnections(), result.subscriptions() + result.patterns()));
		return result;
	}

	/**
	 * Return what the drain cost Redis per acquisition, what it kept per key after, and
	 * what it held per held lock while the waiters waited (their queues and subscriptions
	 * included).
	 */
	private static RedisCost cost(BenchmarkSettings settings, long acquisitions, Map<String, Long> commands,
			RedisUsage waiting, RedisUsage drain, RedisUsage left) {
		long keys = settings.waiterKeys();
		return new RedisCost(drain.cpuMicrosPer(acquisitions),
				commands.values().stream().mapToLong(Long::longValue).sum() / (double) Math.max(1, acquisitions), keys,
				left.keysPer(keys), left.bytesPer(keys), waiting.bytesPer(keys));
	}

	/**
	 * Tell each waiting process to start its waiters.
	 * @return the files in which they will write their acquisitions
	 */
	private static List<Path> startWaiting(BenchmarkRun run, Library library, List<WorkerProcess> waiters) {
		BenchmarkSettings settings = run.settings();
		List<Path> files = new ArrayList<>();
		for (WorkerProcess waiter : waiters) {
			Path file = run.workDirectory().resolve("waiters-" + library.id() + "-" + waiter.id() + ".bin");
			files.add(file);
			waiter.send(String.join(" ", "WAITERS", library.id(), library.id() + "-waiters",
					Integer.toString(settings.waiterKeys()), Integer.toString(settings.waitersPerProcess()),
					Long.toString(settings.waiterWait().toMillis()), Long.toString(settings.settle().toMillis()),
					file.toString()));
		}
		return files;
	}

	/**
	 * Count the blocker's locks that are still in Redis right after it released them all.
	 * Waiters take their locks with a lease far shorter than the blocker's, so a
	 * remaining lease longer than theirs can only be the blocker's: a release that did
	 * not delete the lock.
	 */
	private static long leftLocked(BenchmarkRun run, Library library, BenchmarkSettings settings) {
		long waiterLeaseMillis = Waiters.LEASE.toMillis();
		long left = 0;
		for (int i = 0; i < settings.waiterKeys(); i++) {
			Object ttl = run.redis().command("PTTL", library.redisKey(library.id() + "-waiters-" + i));
			if (ttl instanceof Long millis && millis > waiterLeaseMillis + 5_000) {
				left++;
			}
		}
		return left;
	}

	/**
	 * The {@code DRAINED} replies of the waiting processes, added up.
	 */
	private static final class DrainedFigures {

		private long last;

		private long acquisitions;

		private long timeouts;

		private long errors;

		private int peakThreads;

		void add(String[] reply) {
			this.last = Math.max(this.last, Long.parseLong(reply[0]));
			this.acquisitions += Long.parseLong(reply[1]);
			this.timeouts += Long.parseLong(reply[2]);
			this.errors += Long.parseLong(reply[3]);
			this.peakThreads = Math.max(this.peakThreads, Integer.parseInt(reply[4]));
		}

	}

	/**
	 * The {@code WAITING} replies of the waiting processes, added up.
	 */
	private static final class WaitingFigures {

		private long heapDelta;

		private long maxRss;

		private boolean virtual = true;

		void add(String[] reply) {
			this.heapDelta += Long.parseLong(reply[1]) - Long.parseLong(reply[0]);
			this.maxRss = Math.max(this.maxRss, Long.parseLong(reply[2]));
			this.virtual &= Boolean.parseBoolean(reply[4]);
		}

	}

}
