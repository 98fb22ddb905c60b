package io.github.distributedlock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A worker JVM: its history lines go to the run's {@link History}, other lines to a queue the test can wait on.
 * The test can stop it gracefully, kill it with SIGKILL, and freeze and thaw it with SIGSTOP and SIGCONT.
 */
final class WorkerProcess implements AutoCloseable {

	private final String name;

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final Thread reader;

	private volatile boolean paused;

	private volatile String processId = "";

	private WorkerProcess(String name, Process process, History history) {
		this.name = name;
		this.process = process;
		this.reader = new Thread(() -> read(history), "worker-reader-" + name);
		this.reader.setDaemon(true);
		this.reader.start();
	}

	static WorkerProcess start(WorkerConfig config, History history, Path directory) throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		// Small and cheap: the machine has two cores for Redis, the test JVM and several workers.
		List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
				"-XX:TieredStopAtLevel=1", "-Xss512k", "-cp", System.getProperty("java.class.path"),
				ChaosWorker.class.getName()));
		command.addAll(config.toArgs());
		Process process = new ProcessBuilder(command)
			.redirectError(directory.resolve(config.name() + ".err").toFile())
			.start();
		return new WorkerProcess(config.name(), process, history);
	}

	private void read(History history) {
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = in.readLine()) != null) {
				if (Event.isEvent(line)) {
					history.add(Event.parse(line));
				}
				else {
					if (line.startsWith("READY process=")) {
						this.processId = line.substring("READY process=".length());
					}
					this.lines.add(line);
				}
			}
		}
		catch (IOException ex) {
			// The worker is gone.
		}
	}

	String name() {
		return this.name;
	}

	/**
	 * Return the id that the worker's hand-off requests carry ({@code <claim>:<process id>.<n>}).
	 */
	String processId() {
		return this.processId;
	}

	boolean isPaused() {
		return this.paused;
	}

	long pid() {
		return this.process.pid();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Wait for a line that starts with the prefix.
	 */
	String awaitLine(String prefix, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String line = this.lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (line == null) {
				throw new IllegalStateException("Worker " + this.name + " printed no line starting with '" + prefix
						+ "' within " + timeout + "; alive=" + this.process.isAlive());
			}
			if (line.startsWith(prefix)) {
				return line;
			}
		}
	}

	/**
	 * Ask the worker to finish its current operations and exit, without waiting: see {@link #awaitStopped}.
	 */
	void requestStop() {
		if (this.paused) {
			resume();
		}
		try {
			OutputStream in = this.process.getOutputStream();
			in.write("stop\n".getBytes(StandardCharsets.UTF_8));
			in.flush();
		}
		catch (IOException ex) {
			// Already gone.
		}
	}

	/**
	 * Wait until a worker asked to stop has exited and its whole history is read.
	 */
	void awaitStopped(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("Worker " + this.name + " did not stop within " + timeout);
		}
		this.reader.join(timeout.toMillis());
	}

	/**
	 * Kill with SIGKILL: no release, no shutdown hook, and whatever it had not printed is lost.
	 * @return when it was killed
	 */
	long kill9() throws InterruptedException {
		long now = System.nanoTime();
		this.process.destroyForcibly();
		this.process.waitFor(10, TimeUnit.SECONDS);
		this.reader.join(5000);
		return now;
	}

	/**
	 * Freeze with SIGSTOP: its threads, lease watchdog and connections all stop, as in a long GC pause.
	 */
	void pause() {
		signal("STOP");
		this.paused = true;
	}

	void resume() {
		signal("CONT");
		this.paused = false;
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start();
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not send SIG" + signal + " to worker " + this.name, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling worker " + this.name, ex);
		}
	}

	@Override
	public void close() {
		if (this.paused && this.process.isAlive()) {
			signal("CONT");
		}
		this.process.destroyForcibly();
	}

}
