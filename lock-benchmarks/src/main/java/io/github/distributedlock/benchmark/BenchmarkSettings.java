package io.github.distributedlock.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.github.distributedlock.benchmark.report.ContendedShape;

/**
 * How long and how big each scenario is: the full run, or a smoke run of about a second
 * per scenario that keeps the code from rotting.
 *
 * @param smoke whether this is a smoke run
 * @param outputDirectory where the report goes
 * @param jmh whether to run the JMH microbenchmarks too
 * @param warmup the unmeasured phase before each measured one
 * @param measure the measured phase
 * @param monitor the phase whose commands {@code MONITOR} counts
 * @param manyKeysThreads threads in each of the two processes of scenario 3
 * @param manyKeys keys in scenario 3
 * @param heldLocks locks held at once in scenario 1 to weigh what Redis keeps per held
 * lock
 * @param crashTrials holders killed per library in scenario 4
 * @param crashLease the holder's lease in scenario 4
 * @param crashWait the waiter's wait time in scenario 4
 * @param waitersPerProcess waiting threads in each of the two processes of scenario 5
 * @param waiterKeys awaited keys in scenario 5
 * @param waiterWait the waiters' wait time in scenario 5
 * @param settle how long waiters wait before memory and subscriptions are read
 * @param waiterJava the Java executable for scenario 5
 * @param scenarios the numbers of the scenarios to run, 1 to 6
 * @param reversed whether scenario 2 runs the libraries in reverse order, to check that
 * their order changes nothing but noise
 * @param contended scenario 2's libraries and shapes, such as {@code ours-strict} or
 * {@code 2x8}; empty for all of them
 */
public record BenchmarkSettings(boolean smoke, Path outputDirectory, boolean jmh, Duration warmup, Duration measure,
		Duration monitor, int manyKeysThreads, int manyKeys, int heldLocks, int crashTrials, Duration crashLease,
		Duration crashWait, int waitersPerProcess, int waiterKeys, Duration waiterWait, Duration settle,
		Path waiterJava, Set<Integer> scenarios, boolean reversed, Set<String> contended) {

	/**
	 * Every scenario.
	 */
	public static final Set<Integer> ALL = Set.of(1, 2, 3, 4, 5, 6);

	/**
	 * Where Temurin 25 is installed on the project's machines; scenario 5 uses it for
	 * virtual threads.
	 */
	public static final Path JDK_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

	/**
	 * Platform threads per waiting process when no JDK with virtual threads is found.
	 */
	static final int PLATFORM_WAITERS = 500;

	/**
	 * The settings of a full run: a few minutes.
	 * @param outputDirectory where the report goes
	 * @param jmh whether to run JMH too
	 * @return the settings
	 */
	public static BenchmarkSettings full(Path outputDirectory, boolean jmh) {
		// At least a 10 s warm-up: after 2 s, JIT compilation of the code the libraries
		// share in each worker JVM was most of a library's client CPU in the measured
		// phase (Method). It goes on while the JIT is busy (BenchmarkRun.compiling).
		return new BenchmarkSettings(false, outputDirectory, jmh, Duration.ofSeconds(10), Duration.ofSeconds(5),
				Duration.ofSeconds(1), 32, 1000, 10_000, 3, Duration.ofSeconds(2), Duration.ofSeconds(10),
				waiterThreads(2000), 250, Duration.ofSeconds(30), Duration.ofSeconds(1), findWaiterJava(), ALL, false,
				Set.of());
	}

	/**
	 * The settings of a smoke run: about a second per scenario.
	 * @param outputDirectory where the report goes
	 * @return the settings
	 */
	public static BenchmarkSettings smoke(Path outputDirectory) {
		return new BenchmarkSettings(true, outputDirectory, true, Duration.ofMillis(100), Duration.ofMillis(400),
				Duration.ofMillis(100), 8, 100, 200, 1, Duration.ofMillis(600), Duration.ofMillis(1500),
				waiterThreads(150), 15, Duration.ofSeconds(20), Duration.ofMillis(200), findWaiterJava(), ALL, false,
				Set.of());
	}

	/**
	 * Return a copy that runs only some scenarios, for investigations.
	 * @param only the scenario numbers
	 * @return the settings
	 */
	public BenchmarkSettings only(Set<Integer> only) {
		return new BenchmarkSettings(this.smoke, this.outputDirectory, this.jmh, this.warmup, this.measure,
				this.monitor, this.manyKeysThreads, this.manyKeys, this.heldLocks, this.crashTrials, this.crashLease,
				this.crashWait, this.waitersPerProcess, this.waiterKeys, this.waiterWait, this.settle, this.waiterJava,
				Set.copyOf(only), this.reversed, this.contended);
	}

	/**
	 * Return a copy that runs scenario 2's libraries in reverse order, for
	 * investigations.
	 * @return the settings
	 */
	public BenchmarkSettings reverse() {
		return new BenchmarkSettings(this.smoke, this.outputDirectory, this.jmh, this.warmup, this.measure,
				this.monitor, this.manyKeysThreads, this.manyKeys, this.heldLocks, this.crashTrials, this.crashLease,
				this.crashWait, this.waitersPerProcess, this.waiterKeys, this.waiterWait, this.settle, this.waiterJava,
				this.scenarios, true, this.contended);
	}

	/**
	 * Return a copy whose scenario 2 measures only some libraries and shapes, for
	 * investigations such as a sweep of the cohort limits.
	 * @param only library ids ({@link Library#id()}) and shapes ({@code 2x8},
	 * {@code 1x16}, {@code 2x1}, {@code 4x1}); an empty kind keeps all of that kind
	 * @return the settings
	 */
	public BenchmarkSettings contended(Set<String> only) {
		List<String> shapes = ContendedShape.ALL.stream().map(BenchmarkSettings::name).toList();
		for (String name : only) {
			if (!isLibrary(name) && !shapes.contains(name)) {
				throw new IllegalArgumentException(
						"--contended: no library or shape of scenario 2 is called '" + name + "'; libraries are "
								+ Library.contended().stream().map(Library::id).toList() + ", shapes " + shapes);
			}
		}
		return new BenchmarkSettings(this.smoke, this.outputDirectory, this.jmh, this.warmup, this.measure,
				this.monitor, this.manyKeysThreads, this.manyKeys, this.heldLocks, this.crashTrials, this.crashLease,
				this.crashWait, this.waitersPerProcess, this.waiterKeys, this.waiterWait, this.settle, this.waiterJava,
				this.scenarios, this.reversed, Set.copyOf(only));
	}

	/**
	 * Return whether scenario 2 measures a library, by {@link #contended(Set)}.
	 * @param library the library
	 * @return whether it is measured
	 */
	public boolean measures(Library library) {
		return this.contended.stream().noneMatch(BenchmarkSettings::isLibrary) || this.contended.contains(library.id());
	}

	/**
	 * Return whether scenario 2 measures a shape, by {@link #contended(Set)}.
	 * @param shape the shape
	 * @return whether it is measured
	 */
	public boolean measures(ContendedShape shape) {
		return this.contended.stream().allMatch(BenchmarkSettings::isLibrary) || this.contended.contains(name(shape));
	}

	private static String name(ContendedShape shape) {
		return shape.processes() + "x" + shape.threadsPerProcess();
	}

	private static boolean isLibrary(String name) {
		return Library.contended().stream().anyMatch((library) -> library.id().equals(name));
	}

	/**
	 * Return whether a scenario runs.
	 * @param scenario its number, 1 to 6
	 * @return whether it runs
	 */
	public boolean runs(int scenario) {
		return this.scenarios.contains(scenario);
	}

	private static Path findWaiterJava() {
		return Files.isExecutable(JDK_25) ? JDK_25 : currentJava();
	}

	private static int waiterThreads(int virtual) {
		return Files.isExecutable(JDK_25) ? virtual : Math.min(virtual, PLATFORM_WAITERS);
	}

	/**
	 * Return the {@code java} executable of this JVM.
	 * @return the executable
	 */
	public static Path currentJava() {
		return Path.of(System.getProperty("java.home"), "bin", "java");
	}

	/**
	 * Describe the phase lengths for the report.
	 * @return the description
	 */
	public String describe() {
		String warmup = this.smoke ? this.warmup.toMillis() + " ms"
				: "at least " + this.warmup.toMillis() + " ms, then on while the JIT compilers use over "
						+ Math.round(BenchmarkRun.QUIET_JIT_SHARE * 100) + "% of a core, to "
						+ BenchmarkRun.WARMUP_LIMIT.toSeconds() + " s";
		return (this.smoke ? "smoke" : "full") + " (warm-up " + warmup + ", measured " + this.measure.toMillis()
				+ " ms, MONITOR count " + this.monitor.toMillis() + " ms, per library and scenario)"
				+ (this.reversed ? "; scenario 2's libraries in reverse order" : "")
				+ (this.contended.isEmpty() ? "" : "; scenario 2 only " + String.join(", ", this.contended));
	}

}
