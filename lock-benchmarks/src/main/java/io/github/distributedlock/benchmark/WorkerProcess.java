package io.github.distributedlock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.distributedlock.benchmark.worker.WorkerMain;
import io.github.distributedlock.test.JvmProcess;

/**
 * A worker JVM started with this JVM's class path, driven by command lines on its
 * standard input. Its standard error goes to a log file whose tail is shown when it
 * fails.
 */
final class WorkerProcess implements AutoCloseable {

	/**
	 * Environment variable with extra JVM arguments for every worker; {@code {id}}
	 * becomes the worker id.
	 */
	static final String EXTRA_JVM_ARGS = "BENCH_WORKER_JVM_ARGS";

	private static final String MARK = "@@ ";

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);

	private final int id;

	private final JvmProcess jvm;

	private String[] ready = { "0", "unknown" };

	private WorkerProcess(int id, JvmProcess jvm) {
		this.id = id;
		this.jvm = jvm;
	}

	/**
	 * Start a worker JVM; {@link #awaitReady()} waits until it listens for commands.
	 * @param java the {@code java} executable
	 * @param id the worker id, which also tells its acquisitions apart
	 * @param redisHost the Redis host
	 * @param redisPort the Redis port
	 * @param directory where the log file goes
	 * @param heap the maximum heap, such as {@code 512m}
	 * @return the worker
	 */
	static WorkerProcess start(Path java, int id, String redisHost, int redisPort, Path directory, String heap) {
		return start(java, id, redisHost, redisPort, false, directory, heap);
	}

	/**
	 * Start a worker JVM whose clients connect to a standalone server or, when
	 * {@code cluster}, to the Redis Cluster that the given node belongs to.
	 */
	static WorkerProcess start(Path java, int id, String redisHost, int redisPort, boolean cluster, Path directory,
			String heap) {
		List<String> options = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+UseSerialGC",
				"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
		String extra = System.getenv(EXTRA_JVM_ARGS);
		if (extra != null && !extra.isBlank()) {
			// For investigations, such as a flight recording of every worker.
			options.addAll(List.of(extra.trim().replace("{id}", Integer.toString(id)).split("\\s+")));
		}
		JvmProcess jvm = JvmProcess.builder(WorkerMain.class)
			.name("Worker " + id)
			.java(java)
			.jvmOptions(options)
			.args(cluster
					? new String[] { redisHost, Integer.toString(redisPort), Integer.toString(id), WorkerMain.CLUSTER }
					: new String[] { redisHost, Integer.toString(redisPort), Integer.toString(id) })
			.errorTo(directory.resolve("worker-" + id + ".log"))
			// Only the replies: anything else a library prints is not for the harness.
			.lines((line) -> line.startsWith(MARK) ? line.substring(MARK.length()) : null)
			.start();
		return new WorkerProcess(id, jvm);
	}

	int id() {
		return this.id;
	}

	/**
	 * Wait until the worker listens for commands.
	 * @return this worker
	 */
	WorkerProcess awaitReady() {
		this.ready = await("READY", Duration.ofSeconds(90));
		return this;
	}

	/**
	 * Return the Java feature version the worker runs on, such as 17 or 25.
	 */
	int javaFeature() {
		return Integer.parseInt(this.ready[0]);
	}

	/**
	 * Return the full Java runtime version of the worker.
	 */
	String javaVersion() {
		return this.ready[1];
	}

	void send(String line) {
		this.jvm.send(line);
	}

	/**
	 * Wait for the reply starting with the given word and return its other words.
	 * @throws IllegalStateException if the worker reports an error, dies, or does not
	 * answer in time
	 */
	String[] await(String word, Duration timeout) {
		String[] reply = awaitAny(timeout, word);
		return Arrays.copyOfRange(reply, 1, reply.length);
	}

	/**
	 * Wait for a reply starting with one of the given words and return all its words.
	 * @throws IllegalStateException if the worker reports an error, dies, or does not
	 * answer in time
	 */
	String[] awaitAny(Duration timeout, String... words) {
		List<String> expected = List.of(words);
		String line = this.jvm.awaitLine((reply) -> {
			String first = reply.split(" ", 2)[0];
			return first.equals("ERROR") || expected.contains(first);
		}, "any of " + expected, timeout);
		String[] reply = line.split(" ");
		if (reply[0].equals("ERROR")) {
			throw new IllegalStateException("Worker " + this.id + " failed: " + line + this.jvm.logTail());
		}
		return reply;
	}

	/**
	 * Kill the worker with SIGKILL: no shutdown hook runs and no lock is released.
	 */
	void kill() {
		this.jvm.kill();
	}

	@Override
	public void close() {
		if (this.jvm.isAlive()) {
			try {
				send("EXIT");
				this.jvm.closeInput();
				this.jvm.awaitExit(EXIT_TIMEOUT);
			}
			catch (RuntimeException ex) {
				// It is being killed anyway.
			}
		}
		kill();
	}

}
