package io.github.distributedlock.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class from the test class path, whose standard output is
 * read line by line.
 */
final class JvmProcess implements AutoCloseable {

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private JvmProcess(Process process) {
		this.process = process;
		Thread reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = in.readLine()) != null) {
					this.lines.add(line);
				}
			}
			catch (IOException ex) {
				// The process is gone.
			}
		}, "child-jvm-reader");
		reader.setDaemon(true);
		reader.start();
	}

	static JvmProcess start(Class<?> mainClass, String... args) throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
				"-cp", System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		return new JvmProcess(process);
	}

	/**
	 * Wait for a line starting with the prefix and return it.
	 */
	String awaitLine(String prefix, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			long left = deadline - System.nanoTime();
			String line = this.lines.poll(Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200))),
					TimeUnit.NANOSECONDS);
			if (line != null && line.startsWith(prefix)) {
				return line;
			}
			if (line == null && !this.process.isAlive() && this.lines.isEmpty()) {
				// Don't wait out the timeout for a child that is gone (its stderr is in the build log).
				throw new IllegalStateException("Child JVM exited with " + this.process.exitValue()
						+ " before printing a line starting with '" + prefix + "'");
			}
			if (line == null && left <= 0) {
				throw new IllegalStateException("No line starting with '" + prefix + "' within " + timeout);
			}
		}
	}

	int awaitExit(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("Child JVM did not exit within " + timeout);
		}
		return this.process.exitValue();
	}

	/**
	 * Kill with SIGKILL: no shutdown hook, no release.
	 */
	void kill9() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(10, TimeUnit.SECONDS);
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
	}

}
