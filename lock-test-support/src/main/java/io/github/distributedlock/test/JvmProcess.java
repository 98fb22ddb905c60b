package io.github.distributedlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * A child JVM running a main class from this JVM's class path, whose standard output is
 * read line by line and whose standard input takes commands. Tests wait for its lines,
 * and can kill it, freeze and thaw it.
 * <p>
 * Lines are read by a daemon thread as soon as they are printed; a
 * {@link Builder#lines(Function) line filter} decides which of them
 * {@link #awaitLine(String, Duration)} sees. Thread-safe.
 */
public final class JvmProcess implements AutoCloseable {

	private static final Duration POLL = Duration.ofMillis(200);

	private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);

	private final String name;

	private final Process process;

	private final @Nullable Path log;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final Thread reader;

	private volatile boolean drained;

	private volatile boolean paused;

	private JvmProcess(String name, Process process, @Nullable Path log, Function<String, @Nullable String> filter) {
		this.name = name;
		this.process = process;
		this.log = log;
		this.reader = new Thread(() -> read(filter), name + "-reader");
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/**
	 * Start a child JVM with a small heap and the default options, its standard error
	 * going to this JVM's.
	 * @param mainClass the class whose {@code main} runs
	 * @param args its arguments
	 * @return the running process
	 * @throws UncheckedIOException if the JVM cannot be started
	 */
	public static JvmProcess start(Class<?> mainClass, String... args) {
		return builder(mainClass).args(args).start();
	}

	/**
	 * Start building a child JVM with other options, a log file or a line filter.
	 * @param mainClass the class whose {@code main} runs
	 * @return a new builder
	 */
	public static Builder builder(Class<?> mainClass) {
		return new Builder(mainClass);
	}

	/**
	 * Return the name used in thread names and error messages.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return the process id of the child JVM.
	 * @return the process id
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Return whether the child JVM is still running, paused or not.
	 * @return whether it runs
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Return whether the child JVM is {@link #pause() paused}.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * Wait for a line starting with the prefix, dropping the lines before it.
	 * @param prefix the start of the line
	 * @param timeout how long to wait
	 * @return the line
	 * @throws IllegalStateException if the child JVM ends or the timeout passes before
	 * such a line
	 */
	public String awaitLine(String prefix, Duration timeout) {
		return awaitLine((line) -> line.startsWith(prefix), "a line starting with '" + prefix + "'", timeout);
	}

	/**
	 * Wait for a line that matches, dropping the lines before it.
	 * @param wanted which line to return
	 * @param description what the line is, for the error message
	 * @param timeout how long to wait
	 * @return the line
	 * @throws IllegalStateException if the child JVM ends or the timeout passes before
	 * such a line
	 */
	public String awaitLine(Predicate<String> wanted, String description, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			while (true) {
				long left = deadline - System.nanoTime();
				String line = this.lines.poll(Math.max(0, Math.min(left, POLL.toNanos())), TimeUnit.NANOSECONDS);
				if (line != null) {
					if (wanted.test(line)) {
						return line;
					}
				}
				else if (this.drained && this.lines.isEmpty()) {
					// Don't wait out the timeout for a child that is gone.
					throw new IllegalStateException(this.name + " ended (" + exitDescription() + ") before printing "
							+ description + logTail());
				}
				else if (left <= 0) {
					throw new IllegalStateException(this.name + " did not print " + description + " within " + timeout
							+ " (alive: " + this.process.isAlive() + ")" + logTail());
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + description + " from " + this.name, ex);
		}
	}

	/**
	 * Write a line to the child JVM's standard input.
	 * @param line the line, without its line break
	 * @throws UncheckedIOException if the child JVM no longer reads its input
	 */
	public void send(String line) {
		try {
			OutputStream in = this.process.getOutputStream();
			synchronized (in) {
				in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
				in.flush();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(this.name + " no longer reads its input" + logTail(), ex);
		}
	}

	/**
	 * Close the child JVM's standard input, which it sees as end of file.
	 */
	public void closeInput() {
		try {
			this.process.getOutputStream().close();
		}
		catch (IOException ex) {
			// Gone already.
		}
	}

	/**
	 * Wait until the child JVM has exited and every line it printed has been read.
	 * @param timeout how long to wait
	 * @return its exit code
	 * @throws IllegalStateException if it has not exited within the timeout
	 */
	public int awaitExit(Duration timeout) {
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(this.name + " did not exit within " + timeout);
			}
			this.reader.join(timeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + this.name + " to exit", ex);
		}
		return this.process.exitValue();
	}

	/**
	 * Kill the child JVM with SIGKILL (no shutdown hook runs, nothing is released) and
	 * wait until it is gone and every line it printed has been read.
	 */
	public void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			this.reader.join(KILL_TIMEOUT.toMillis() / 2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Freeze the child JVM with SIGSTOP: its threads, timers and connections all stop, as
	 * in a long GC pause.
	 */
	public void pause() {
		PosixSignal.STOP.send(pid());
		this.paused = true;
	}

	/**
	 * Let a {@link #pause() paused} child JVM run again with SIGCONT.
	 */
	public void resume() {
		PosixSignal.CONT.send(pid());
		this.paused = false;
	}

	/**
	 * Return the last lines of the child JVM's standard error when it goes to a file.
	 * @return the tail, starting with a line break, or an empty string
	 */
	public String logTail() {
		if (this.log == null) {
			return "";
		}
		try {
			List<String> logLines = Files.readAllLines(this.log);
			return "\nLog tail of " + this.name + " (" + this.log + "):\n"
					+ String.join("\n", logLines.subList(Math.max(0, logLines.size() - 30), logLines.size()));
		}
		catch (IOException ex) {
			return "";
		}
	}

	/**
	 * Kill the child JVM with SIGKILL, after thawing it if it is paused, without waiting.
	 */
	@Override
	public void close() {
		if (this.paused && this.process.isAlive()) {
			try {
				resume();
			}
			catch (IllegalStateException ex) {
				// It is being killed anyway.
			}
		}
		this.process.destroyForcibly();
	}

	@Override
	public String toString() {
		return "JvmProcess[" + this.name + ", pid " + this.process.pid() + "]";
	}

	private void read(Function<String, @Nullable String> filter) {
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = in.readLine()) != null) {
				String kept = filter.apply(line);
				if (kept != null) {
					this.lines.add(kept);
				}
			}
		}
		catch (IOException ex) {
			// The process is gone.
		}
		finally {
			this.drained = true;
		}
	}

	private String exitDescription() {
		try {
			return this.process.waitFor(1, TimeUnit.SECONDS) ? "exit code " + this.process.exitValue() : "still alive";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "unknown exit code";
		}
	}

	/**
	 * Options of a child JVM to start.
	 */
	public static final class Builder {

		private static final List<String> DEFAULT_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
				"-XX:TieredStopAtLevel=1");

		private final Class<?> mainClass;

		private Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));

		private List<String> options = DEFAULT_OPTIONS;

		private final List<String> args = new ArrayList<>();

		private String name;

		private @Nullable Path log;

		private Function<String, @Nullable String> filter = (line) -> line;

		private Builder(Class<?> mainClass) {
			this.mainClass = mainClass;
			this.name = mainClass.getSimpleName();
		}

		/**
		 * Run another {@code java} executable than this JVM's, such as another Java
		 * version.
		 * @param java the executable
		 * @return this builder
		 */
		public Builder java(Path java) {
			this.java = java;
			return this;
		}

		/**
		 * Replace the JVM options,
		 * {@code -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1} unless set. The class
		 * path is always this JVM's.
		 * @param options the options
		 * @return this builder
		 */
		public Builder jvmOptions(List<String> options) {
			this.options = List.copyOf(options);
			return this;
		}

		/**
		 * Add arguments of the main class.
		 * @param args the arguments
		 * @return this builder
		 */
		public Builder args(String... args) {
			this.args.addAll(List.of(args));
			return this;
		}

		/**
		 * Add arguments of the main class.
		 * @param args the arguments
		 * @return this builder
		 */
		public Builder args(List<String> args) {
			this.args.addAll(args);
			return this;
		}

		/**
		 * Set the name used in thread names and error messages, the simple name of the
		 * main class unless set.
		 * @param name the name
		 * @return this builder
		 */
		public Builder name(String name) {
			this.name = name;
			return this;
		}

		/**
		 * Send the standard error to a file, whose tail error messages show, instead of
		 * this JVM's standard error.
		 * @param log the file
		 * @return this builder
		 */
		public Builder errorTo(Path log) {
			this.log = log;
			return this;
		}

		/**
		 * Decide what each line of standard output becomes: the line
		 * {@link #awaitLine(String, Duration)} sees, or {@code null} to drop it (after
		 * handing it elsewhere, for example). Runs on the reader thread.
		 * @param filter the filter, every line kept as it is unless set
		 * @return this builder
		 */
		public Builder lines(Function<String, @Nullable String> filter) {
			this.filter = filter;
			return this;
		}

		/**
		 * Start the child JVM.
		 * @return the running process
		 * @throws UncheckedIOException if it cannot be started
		 */
		public JvmProcess start() {
			List<String> command = new ArrayList<>();
			command.add(this.java.toString());
			command.addAll(this.options);
			command.addAll(List.of("-cp", System.getProperty("java.class.path"), this.mainClass.getName()));
			command.addAll(this.args);
			ProcessBuilder builder = new ProcessBuilder(command)
				.redirectError((this.log != null) ? Redirect.to(this.log.toFile()) : Redirect.INHERIT);
			try {
				return new JvmProcess(this.name, builder.start(), this.log, this.filter);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not start " + this.name + " with " + this.java, ex);
			}
		}

	}

}
