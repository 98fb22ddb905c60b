package io.github.distributedlock.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.benchmark.report.CrashResult;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 4: a holder process is killed with SIGKILL while it holds a lock with a short
 * lease, and a waiter in another process measures how long after the lease ended it got
 * the lock.
 */
final class CrashScenario {

	private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);

	private static final long WAITER_LEASE_MILLIS = 30_000;

	private CrashScenario() {
	}

	static List<CrashResult> run(BenchmarkRun run) {
		int trials = run.settings().crashTrials();
		// One fresh JVM per trial, all started at once: they only load their library when
		// told to hold.
		List<WorkerProcess> holders = run.startWorkers(BenchmarkSettings.currentJava(),
				Library.compared().size() * trials, "256m");
		try {
			List<CrashResult> results = new ArrayList<>();
			List<Library> libraries = Library.compared();
			for (int i = 0; i < libraries.size(); i++) {
				int first = i * trials;
				results.add(run(run, libraries.get(i), holders.subList(first, first + trials)));
			}
			return results;
		}
		finally {
			holders.forEach(WorkerProcess::close);
		}
	}

	private static CrashResult run(BenchmarkRun run, Library library, List<WorkerProcess> holders) {
		BenchmarkSettings settings = run.settings();
		WorkerProcess waiter = run.pool(2).get(1);
		List<Double> delays = new ArrayList<>();
		int timeouts = 0;
		for (int trial = 0; trial < holders.size(); trial++) {
			Double delay = trial(waiter, holders.get(trial), library, library.id() + "-crash-" + trial, settings);
			if (delay == null) {
				timeouts++;
			}
			else {
				delays.add(delay);
			}
		}
		CrashResult result = new CrashResult(library, settings.crashLease(), settings.crashWait(), delays, timeouts);
		Progress.report("crash", library, String.format("after lease end: median %.1f ms, max %.1f ms, %d timeouts",
				result.medianMillis(), result.maxMillis(), timeouts));
		return result;
	}

	/**
	 * Run one trial.
	 * @return milliseconds from the end of the holder's lease to the waiter's
	 * acquisition, or {@code null} if the waiter gave up
	 */
	private static @Nullable Double trial(WorkerProcess waiter, WorkerProcess holder, Library library, String key,
			BenchmarkSettings settings) {
		holder.send("HOLD " + library.id() + " " + key + " " + settings.crashLease().toMillis());
		// The lease began in Redis between these two stamps: at most one round trip
		// before the second.
		long held = Long.parseLong(holder.await("HELD", REPLY_TIMEOUT)[1]);
		waiter.send(
				"WAIT " + library.id() + " " + key + " " + WAITER_LEASE_MILLIS + " " + settings.crashWait().toMillis());
		sleep(settings.crashLease().dividedBy(8));
		holder.kill();
		String[] reply = waiter.awaitAny(settings.crashWait().plus(REPLY_TIMEOUT), "GOT", "TIMEOUT");
		if (reply[0].equals("TIMEOUT")) {
			return null;
		}
		long leaseEnd = held + settings.crashLease().toNanos();
		return (Long.parseLong(reply[2]) - leaseEnd) / 1e6;
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

}
