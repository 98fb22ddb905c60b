package io.github.distributedlock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.benchmark.report.CommandCounts;
import io.github.distributedlock.benchmark.report.RedisCost;
import io.github.distributedlock.test.RedisProcess;

/**
 * One benchmark run: the redis-server that every library shares, a pool of long-lived
 * worker JVMs that host a client of every library, and timed phases across them.
 */
final class BenchmarkRun implements AutoCloseable {

	/**
	 * Workers in the pool: the most that a scenario runs at once.
	 */
	static final int POOL_SIZE = 4;

	private static final Duration START_DELAY = Duration.ofMillis(50);

	private static final String WORKER_HEAP = "768m";

	/**
	 * The longest a warm-up lasts, the settings' own included, while the workers' JIT
	 * compilers are still busy.
	 */
	static final Duration WARMUP_LIMIT = Duration.ofSeconds(60);

	/**
	 * Each further warm-up step.
	 */
	static final Duration WARMUP_STEP = Duration.ofSeconds(5);

	/**
	 * The share of one core that the workers' JIT compiler threads, together, may use in
	 * a warm-up step for the code to count as compiled.
	 */
	static final double QUIET_JIT_SHARE = 0.05;

	private final BenchmarkSettings settings;

	private final RedisProcess redis;

	private final Path workDirectory;

	private final List<WorkerProcess> pool;

	private final AtomicInteger nextWorkerId = new AtomicInteger(POOL_SIZE);

	private final AtomicInteger phases = new AtomicInteger();

	BenchmarkRun(BenchmarkSettings settings, RedisProcess redis, Path workDirectory) {
		this.settings = settings;
		this.redis = redis;
		this.workDirectory = workDirectory;
		this.pool = startWorkers(BenchmarkSettings.currentJava(), POOL_SIZE, WORKER_HEAP, 0);
	}

	BenchmarkSettings settings() {
		return this.settings;
	}

	RedisProcess redis() {
		return this.redis;
	}

	Path workDirectory() {
		return this.workDirectory;
	}

	List<WorkerProcess> pool(int count) {
		return this.pool.subList(0, count);
	}

	/**
	 * Start fresh worker JVMs beside the pool, on this JVM's Java and with the pool's
	 * heap, for a scenario that gives each library JVMs of its own.
	 */
	List<WorkerProcess> startWorkers(int count) {
		return startWorkers(BenchmarkSettings.currentJava(), count, WORKER_HEAP);
	}

	/**
	 * Start fresh worker JVMs beside the pool, for scenarios that kill them or measure
	 * their memory.
	 */
	List<WorkerProcess> startWorkers(Path java, int count, String heap) {
		return startWorkers(java, count, heap, this.nextWorkerId.getAndAdd(count));
	}

	/**
	 * Start fresh worker JVMs whose clients connect to Redis Clusters, all at once so
	 * that they start up together.
	 * @param nodes one node of each cluster
	 * @param perCluster workers for each cluster
	 * @return the workers, those of the first cluster first
	 */
	List<WorkerProcess> startClusterWorkers(List<RedisProcess> nodes, int perCluster) {
		List<WorkerProcess> workers = new ArrayList<>();
		try {
			for (RedisProcess node : nodes) {
				for (int i = 0; i < perCluster; i++) {
					workers
						.add(WorkerProcess.start(BenchmarkSettings.currentJava(), this.nextWorkerId.getAndIncrement(),
								node.host(), node.port(), true, this.workDirectory, WORKER_HEAP));
				}
			}
			workers.forEach(WorkerProcess::awaitReady);
			return workers;
		}
		catch (RuntimeException ex) {
			workers.forEach(WorkerProcess::close);
			throw ex;
		}
	}

	private List<WorkerProcess> startWorkers(Path java, int count, String heap, int firstId) {
		List<WorkerProcess> workers = new ArrayList<>();
		try {
			for (int i = 0; i < count; i++) {
				workers.add(WorkerProcess.start(java, firstId + i, this.redis.host(), this.redis.port(),
						this.workDirectory, heap));
			}
			workers.forEach(WorkerProcess::awaitReady);
			return workers;
		}
		catch (RuntimeException ex) {
			workers.forEach(WorkerProcess::close);
			throw ex;
		}
	}

	/**
	 * Run one timed phase of a loop on the given workers, all starting at the same
	 * instant.
	 * @param record whether to collect every acquisition
	 */
	PhaseResult loop(List<WorkerProcess> workers, LoopSpec spec, Duration duration, boolean record) {
		int phase = this.phases.incrementAndGet();
		long start = System.nanoTime() + START_DELAY.toNanos();
		long end = start + duration.toNanos();
		Map<WorkerProcess, Path> files = new HashMap<>();
		for (WorkerProcess worker : workers) {
			Path file = this.workDirectory.resolve("phase-" + phase + "-worker-" + worker.id() + ".bin");
			files.put(worker, file);
			worker.send(spec.command(start, end, record ? file.toString() : "-"));
		}
		Duration timeout = duration.plus(START_DELAY).plusMillis(spec.waitMillis()).plusSeconds(60);
		long reported = 0;
		long timeouts = 0;
		long errors = 0;
		long clientCpuNanos = 0;
		long jitCpuNanos = 0;
		List<Acquisition> acquisitions = new ArrayList<>();
		for (WorkerProcess worker : workers) {
			String[] done = worker.await("DONE", timeout);
			reported += Long.parseLong(done[0]);
			timeouts += Long.parseLong(done[1]);
			errors += Long.parseLong(done[2]);
			clientCpuNanos += Long.parseLong(done[3]);
			jitCpuNanos += Long.parseLong(done[4]);
			if (record) {
				acquisitions.addAll(AcquisitionFile.read(Objects.requireNonNull(files.get(worker))));
			}
		}
		return new PhaseResult(start, end, acquisitions, reported, timeouts, errors, clientCpuNanos, jitCpuNanos);
	}

	/**
	 * Warm up, run the measured phase with {@code INFO commandstats} and {@code INFO cpu}
	 * around it, then count round trips with {@code MONITOR} in a separate phase. The
	 * database is emptied before the warm-up, so that keys and memory left after the last
	 * phase are this loop's alone, and no earlier library's keys expire or shrink their
	 * dictionaries meanwhile.
	 */
	Measured measure(List<WorkerProcess> workers, LoopSpec spec) {
		this.redis.flushAll();
		RedisUsage start = usage();
		PhaseResult warmup = loop(workers, spec, this.settings.warmup(), false);
		long warmupAttempts = attempts(warmup);
		Duration step = this.settings.warmup();
		Duration warmedUp = step;
		while (!this.settings.smoke() && compiling(warmup, step) && warmedUp.compareTo(WARMUP_LIMIT) < 0) {
			step = WARMUP_STEP;
			warmup = loop(workers, spec, step, false);
			warmupAttempts += attempts(warmup);
			warmedUp = warmedUp.plus(step);
		}
		if (warmedUp.compareTo(this.settings.warmup()) > 0) {
			Progress.note(spec.prefix() + ": warmed up for " + warmedUp.toSeconds() + " s"
					+ (compiling(warmup, step) ? ", the JIT still busy" : ", until the JIT was quiet"));
		}
		this.redis.resetStats();
		RedisUsage before = usage();
		PhaseResult measured = loop(workers, spec, this.settings.measure(), true);
		RedisUsage during = usage().minus(before);
		Map<String, Long> server = serverCommands();
		PhaseResult counted;
		Map<String, Long> client;
		int tries = 0;
		do {
			// A short phase on a loaded machine may end before the workers sent a
			// command,
			// and then counts no round trip: it runs again, at most twice more.
			MonitorCapture monitor = MonitorCapture.start(this.redis);
			try {
				counted = loop(workers, spec, this.settings.monitor(), false);
			}
			catch (RuntimeException ex) {
				monitor.close();
				throw ex;
			}
			client = monitor.finish(this.redis);
		}
		while (client.isEmpty() && ++tries < 3);
		CommandCounts commands = CommandCounts.of(client, counted.reported(), server, measured.reported());
		RedisUsage left = usage().minus(start);
		long names = spec.distinctNames(warmupAttempts + attempts(measured) + attempts(counted));
		RedisCost cost = new RedisCost(during.cpuMicrosPer(measured.reported()), commands.serverCommands(), names,
				left.keysPer(names), left.bytesPer(names), Double.NaN);
		return new Measured(measured, commands, cost);
	}

	/**
	 * Return whether the workers' JIT compilers were still busy in a phase: together they
	 * used more than {@link #QUIET_JIT_SHARE} of a core. In a phase measured while they
	 * are, the library whose code is still being compiled pays for it (session 27: this
	 * project's JIT took 210–266 µs per acquisition with 4 processes after a 10 s
	 * warm-up, 0–6 µs after 40 s, and its throughput rose by a third), so a warm-up goes
	 * on until they are quiet, up to {@link #WARMUP_LIMIT}.
	 * @param phase the phase
	 * @param duration how long it lasted
	 * @return whether they were busy
	 */
	static boolean compiling(PhaseResult phase, Duration duration) {
		return phase.jitCpuNanos() > QUIET_JIT_SHARE * duration.toNanos();
	}

	private static long attempts(PhaseResult phase) {
		return phase.reported() + phase.timeouts();
	}

	/**
	 * Return what Redis executed since the last reset, including commands run inside Lua,
	 * without the harness's own commands.
	 */
	Map<String, Long> serverCommands() {
		Map<String, Long> calls = new HashMap<>(this.redis.commandCalls());
		calls.keySet().removeAll(MonitorCapture.IGNORED);
		return calls;
	}

	/**
	 * Return what the shared redis-server has used so far: main-thread CPU, data memory
	 * and keys.
	 */
	RedisUsage usage() {
		return RedisUsage.take(this.redis);
	}

	@Override
	public void close() {
		this.pool.forEach(WorkerProcess::close);
	}

	/**
	 * A measured phase and what it cost Redis.
	 *
	 * @param phase the measured phase
	 * @param commands commands per acquisition
	 * @param cost what Redis spent per acquisition and kept per lock name
	 */
	record Measured(PhaseResult phase, CommandCounts commands, RedisCost cost) {

	}

}
