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
			String line = this.lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (line == null) {
				throw new IllegalStateException("No line starting with '" + prefix + "' within " + timeout
						+ "; alive=" + this.process.isAlive());
			}
			if (line.startsWith(prefix)) {
				return line;
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
