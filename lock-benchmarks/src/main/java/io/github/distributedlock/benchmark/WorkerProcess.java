package io.github.distributedlock.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.benchmark.worker.WorkerMain;

/**
 * A worker JVM started with this JVM's class path, driven by command lines on its standard input. Its standard
 * error goes to a log file whose tail is shown when it fails.
 */
final class WorkerProcess implements AutoCloseable {

	/**
	 * Environment variable with extra JVM arguments for every worker; {@code {id}} becomes the worker id.
	 */
	static final String EXTRA_JVM_ARGS = "BENCH_WORKER_JVM_ARGS";

	private static final String MARK = "@@ ";

	private final int id;

	private final Process process;

	private final Path log;

	private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

	private final Writer input;

	private String[] ready = { "0", "unknown" };

	private WorkerProcess(int id, Process process, Path log) {
		this.id = id;
		this.process = process;
		this.log = log;
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread reader = new Thread(this::readReplies, "worker-" + id + "-reader");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start a worker JVM; {@link #awaitReady()} waits until it listens for commands.
	 * @param java the {@code java} executable
	 * @param id the worker id, which also tells its acquisitions apart
	 * @param redis the Redis host and port
	 * @param directory where the log file goes
	 * @param heap the maximum heap, such as {@code 512m}
	 * @return the worker
	 */
	static WorkerProcess start(Path java, int id, String redisHost, int redisPort, Path directory, String heap) {
		return start(java, id, redisHost, redisPort, false, directory, heap);
	}

	/**
	 * Start a worker JVM whose clients connect to a standalone server or, when {@code cluster}, to the Redis Cluster
	 * that the given node belongs to.
	 */
	static WorkerProcess start(Path java, int id, String redisHost, int redisPort, boolean cluster, Path directory,
			String heap) {
		Path log = directory.resolve("worker-" + id + ".log");
		List<String> command = new ArrayList<>(List.of(java.toString(), "-Xms" + heap, "-Xmx" + heap,
				"-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
		String extra = System.getenv(EXTRA_JVM_ARGS);
		if (extra != null && !extra.isBlank()) {
			// For investigations, such as a flight recording of every worker.
			command.addAll(List.of(extra.trim().replace("{id}", Integer.toString(id)).split("\\s+")));
		}
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), WorkerMain.class.getName(), redisHost,
				Integer.toString(redisPort), Integer.toString(id)));
		if (cluster) {
			command.add(WorkerMain.CLUSTER);
		}
		try {
			Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
			return new WorkerProcess(id, process, log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start worker " + id + " with " + java, ex);
		}
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
		try {
			this.input.write(line + "\n");
			this.input.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Worker " + this.id + " no longer reads commands" + logTail(), ex);
		}
	}

	/**
	 * Wait for the reply starting with the given word and return its other words.
	 * @throws IllegalStateException if the worker reports an error, dies, or does not answer in time
	 */
	String[] await(String word, Duration timeout) {
		String[] reply = awaitAny(timeout, word);
		return Arrays.copyOfRange(reply, 1, reply.length);
	}

	/**
	 * Wait for a reply starting with one of the given words and return all its words.
	 * @throws IllegalStateException if the worker reports an error, dies, or does not answer in time
	 */
	String[] awaitAny(Duration timeout, String... words) {
		List<String> expected = List.of(words);
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String line;
			try {
				line = this.replies.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for worker " + this.id, ex);
			}
			if (line == null) {
				throw new IllegalStateException("Worker " + this.id + " sent none of " + expected + " within "
						+ timeout + " (alive: " + this.process.isAlive() + ")" + logTail());
			}
			String[] reply = line.split(" ");
			if (reply[0].equals("ERROR")) {
				throw new IllegalStateException("Worker " + this.id + " failed: " + line + logTail());
			}
			if (expected.contains(reply[0])) {
				return reply;
			}
		}
	}

	/**
	 * Kill the worker with SIGKILL: no shutdown hook runs and no lock is released.
	 */
	void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			try {
				send("EXIT");
				this.input.close();
				this.process.waitFor(5, TimeUnit.SECONDS);
			}
			catch (IOException | UncheckedIOException ex) {
				// It is being killed anyway.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		kill();
	}

	private void readReplies() {
		try (BufferedReader out = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = out.readLine()) != null) {
				if (line.startsWith(MARK)) {
					this.replies.add(line.substring(MARK.length()));
				}
			}
		}
		catch (IOException ex) {
			// The worker is gone; await() reports it.
		}
	}

	private String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return "\nLog tail of worker " + this.id + " (" + this.log + "):\n"
					+ String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
		}
		catch (IOException ex) {
			return "";
		}
	}

}
