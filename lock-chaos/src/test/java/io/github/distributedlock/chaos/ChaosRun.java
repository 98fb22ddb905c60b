package io.github.distributedlock.chaos;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.github.distributedlock.test.HostAndPort;
import io.github.distributedlock.test.RedisProcess;
import io.github.distributedlock.test.RedisSentinelTopology;
import io.github.distributedlock.test.RedisServers;
import org.jspecify.annotations.Nullable;

/**
 * One chaos run: a Redis, the fenced store, worker JVMs (each behind its own proxy when
 * Redis is standalone), the faults the test injects, and the history they produce.
 * {@link #finish()} stops the workers and checks the history; {@link #close()} releases
 * everything.
 */
final class ChaosRun implements AutoCloseable {

	/**
	 * How late a lock of a dead or frozen holder may be taken again after its lease
	 * ended: waiters wake when the lease ends, but this machine is small and shared.
	 */
	static final Duration LIVENESS_MARGIN = Duration.ofMillis(1500);

	private static final Duration WORKER_START_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration WORKER_STOP_TIMEOUT = Duration.ofSeconds(60);

	private final String name;

	private final Path directory;

	private final History history = new History();

	private final FencedStore store;

	private final @Nullable RedisProcess redis;

	private final Map<String, ChaosProxy> proxies = new LinkedHashMap<>();

	private final Map<String, WorkerProcess> workers = new LinkedHashMap<>();

	private final List<Fault> faults = new ArrayList<>();

	private @Nullable RedisMonitor monitor;

	private ChaosRun(String name, @Nullable RedisProcess redis) throws IOException {
		this.name = name;
		this.redis = redis;
		this.directory = Files.createDirectories(
				Path.of(System.getProperty("chaos.workDir", "target/chaos")).resolve(name.replaceAll("\\W+", "-")));
		this.store = FencedStore.start();
	}

	/**
	 * Start a run against a new standalone redis-server launched with the given
	 * arguments.
	 */
	static ChaosRun standalone(String name, String... redisArgs) throws IOException {
		return new ChaosRun(name, RedisServers.launch(redisArgs));
	}

	/**
	 * Start a run against a Sentinel group; workers find the master through the
	 * Sentinels, without proxies.
	 */
	static ChaosRun sentinel(String name) throws IOException {
		return new ChaosRun(name, null);
	}

	/**
	 * Return the settings workers get unless a test changes them: three keys, a 1 s
	 * lease, a 5 s wait, critical sections of 2 to 20 ms and a 1 s command timeout.
	 */
	WorkerConfig defaults() {
		return new WorkerConfig("w", "", this.store.port(), List.of("k0", "k1", "k2"), 2, 1000, 5000, 2, 20, 1000, 0,
				1);
	}

	/**
	 * Start workers on the standalone Redis, each behind its own proxy, and wait until
	 * all are ready.
	 */
	void startWorkers(int count, WorkerConfig config) throws IOException, InterruptedException {
		if (this.redis == null) {
			throw new IllegalStateException("A Sentinel run starts its workers with startSentinelWorkers");
		}
		List<WorkerProcess> started = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String worker = "w" + (this.workers.size() + 1);
			ChaosProxy proxy = ChaosProxy.start(this.redis.port());
			this.proxies.put(worker, proxy);
			started
				.add(launch(config.withName(worker, this.workers.size() + 1).withRedis("127.0.0.1:" + proxy.port())));
		}
		awaitReady(started);
	}

	/**
	 * Start workers that reach a Sentinel group's master through its Sentinels.
	 */
	void startSentinelWorkers(int count, WorkerConfig config, RedisSentinelTopology topology)
			throws IOException, InterruptedException {
		List<String> sentinels = topology.sentinelAddresses().stream().map(HostAndPort::toString).toList();
		String redis = "sentinel:" + topology.masterName() + "@" + String.join(",", sentinels);
		List<WorkerProcess> started = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String worker = "w" + (this.workers.size() + 1);
			started.add(launch(config.withName(worker, this.workers.size() + 1).withRedis(redis)));
		}
		awaitReady(started);
	}

	private WorkerProcess launch(WorkerConfig config) throws IOException {
		WorkerProcess process = WorkerProcess.start(config.withSwitchedCohorts(), this.history, this.directory);
		this.workers.put(config.name(), process);
		return process;
	}

	private static void awaitReady(List<WorkerProcess> started) throws InterruptedException {
		for (WorkerProcess worker : started) {
			worker.awaitLine("READY", WORKER_START_TIMEOUT);
		}
	}

	String name() {
		return this.name;
	}

	RedisProcess redis() {
		if (this.redis == null) {
			throw new IllegalStateException("A Sentinel run has no single redis-server");
		}
		return this.redis;
	}

	WorkerProcess worker(String name) {
		return this.workers.get(name);
	}

	List<WorkerProcess> workers() {
		return List.copyOf(this.workers.values());
	}

	ChaosProxy proxy(String worker) {
		return this.proxies.get(worker);
	}

	History history() {
		return this.history;
	}

	FencedStore store() {
		return this.store;
	}

	/**
	 * Record Redis's expiries from now on (MONITOR), so that the checker can judge holds
	 * whose lease the watchdog renewed or a shared owner re-entered. For short runs with
	 * few workers.
	 */
	void monitor() {
		this.monitor = RedisMonitor.start(redis());
	}

	void fault(Fault fault) {
		this.faults.add(fault);
	}

	/**
	 * Wait for the next successful acquisition that matches, from now on.
	 */
	Event awaitAcquisition(Predicate<Event> condition, Duration timeout) throws InterruptedException {
		Event event = this.history.await(this.history.size(), (e) -> e.is(Event.OK, Event.ACQUIRE) && condition.test(e),
				timeout);
		if (event == null) {
			throw new IllegalStateException(this.name + ": no acquisition within " + timeout);
		}
		return event;
	}

	/**
	 * Wait for a successful acquisition that matches, among the events from index
	 * {@code from} of the history on (see {@link History#size()}).
	 */
	Event awaitAcquisitionSince(int from, Predicate<Event> condition, Duration timeout) throws InterruptedException {
		Event event = this.history.await(from, (e) -> e.is(Event.OK, Event.ACQUIRE) && condition.test(e), timeout);
		if (event == null) {
			throw new IllegalStateException(this.name + ": no acquisition within " + timeout);
		}
		return event;
	}

	/**
	 * Return the hold that an acquisition started, as the history shows it now.
	 */
	Hold hold(String holdId) {
		return this.history.holds()
			.stream()
			.filter((hold) -> hold.holdId().equals(holdId))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No hold " + holdId));
	}

	/**
	 * Let the workers run.
	 */
	void run(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

	/**
	 * Stop every live worker gracefully, check the history and record the result in the
	 * summary.
	 */
	CheckReport finish() throws InterruptedException, IOException {
		return finish(Map.of(this.name, (key) -> true)).get(this.name);
	}

	/**
	 * Stop every live worker gracefully, and check the history of each group of keys on
	 * its own, recording each in the summary under the group's name: for runs whose
	 * workers are configured differently per key.
	 */
	Map<String, CheckReport> finish(Map<String, Predicate<String>> groups) throws InterruptedException, IOException {
		// All at once: each may be in the middle of a wait of several seconds.
		List<WorkerProcess> alive = this.workers.values().stream().filter(WorkerProcess::isAlive).toList();
		alive.forEach(WorkerProcess::requestStop);
		for (WorkerProcess worker : alive) {
			worker.awaitStopped(WORKER_STOP_TIMEOUT);
		}
		if (this.monitor != null) {
			this.monitor.catchUp(redis(), Duration.ofSeconds(30));
		}
		List<Hold> holds = this.history.holds();
		List<FencedStore.StoreWrite> writes = this.store.writes();
		Map<String, CheckReport> reports = new LinkedHashMap<>();
		boolean failed = false;
		for (Map.Entry<String, Predicate<String>> group : groups.entrySet()) {
			Predicate<String> keys = group.getValue();
			HistoryChecker checker = new HistoryChecker(holds.stream().filter((hold) -> keys.test(hold.key())).toList(),
					writes.stream().filter((write) -> keys.test(write.key())).toList(), this.faults, LIVENESS_MARGIN,
					this.monitor);
			CheckReport report = checker.check(this.history, keys);
			checker.dataLossOverlaps()
				.forEach((overlap) -> System.out.println(group.getKey() + ": overlap after lost data: " + overlap));
			if (this.monitor != null && this.monitor.broken()) {
				System.out.println(group.getKey() + ": the MONITOR connection broke; renewed leases were not judged");
			}
			failed |= !report.exclusionViolations().isEmpty() || !report.staleWritesAccepted().isEmpty()
					|| !report.tokenOrderViolations().isEmpty() || !report.livenessViolations().isEmpty();
			ChaosSummary.record(group.getKey(), report);
			reports.put(group.getKey(), report);
		}
		if (failed || Boolean.getBoolean("chaos.keepHistory")) {
			writeHistory();
		}
		return reports;
	}

	/**
	 * Keep the raw history of a failed run next to the workers' error output, for whoever
	 * investigates.
	 */
	private void writeHistory() throws IOException {
		Path file = this.directory.resolve("history.txt");
		try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
			for (Fault fault : this.faults) {
				out.println("# " + fault);
			}
			this.history.events()
				.stream()
				.sorted(java.util.Comparator.comparingLong(Event::nanos))
				.forEach((event) -> out.println(event.format()));
			for (FencedStore.StoreWrite write : this.store.writes()) {
				out.println("# " + write);
			}
		}
		System.err.println(this.name + ": history written to " + file);
	}

	@Override
	public void close() throws IOException {
		if (this.monitor != null) {
			this.monitor.close();
		}
		this.workers.values().forEach(WorkerProcess::close);
		this.proxies.values().forEach(ChaosProxy::close);
		this.store.close();
		if (this.redis != null) {
			this.redis.close();
		}
	}

}
