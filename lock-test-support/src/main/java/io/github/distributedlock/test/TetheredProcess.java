package io.github.distributedlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * A child process that cannot outlive this JVM, even when the JVM is killed with SIGKILL.
 * <p>
 * It runs under a small shell that prints the child's pid and then blocks reading its
 * stdin, a pipe only this JVM writes to. However the JVM ends, the kernel closes that
 * pipe, {@code grep} sees end of file and the shell kills the child. A shutdown hook
 * alone would not run on SIGKILL. {@link #release()} writes a line first, which tells an
 * orderly end from an orphaned child, whose files the shell then deletes as nobody else
 * will.
 */
final class TetheredProcess {

	// grep runs as a child of the shell (a builtin read would not be), so the shell keeps
	// reaping the process.
	private static final String SCRIPT = "out=$1; orphaned=$2; shift 2; \"$@\" </dev/null >>\"$out\" 2>&1 & "
			+ "echo $!; if grep -q released; then orphaned=; fi; kill -9 $! 2>/dev/null; wait $! 2>/dev/null; "
			+ "if [ -n \"$orphaned\" ]; then rm -rf \"$orphaned\"; fi";

	private static final byte[] RELEASED = "released\n".getBytes(StandardCharsets.US_ASCII);

	private static final Duration POLL = Duration.ofMillis(10);

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);

	private final Process shell;

	private final long pid;

	/**
	 * Held from the start because a handle remembers the start time, so a recycled pid is
	 * never mistaken for ours.
	 */
	private final @Nullable ProcessHandle handle;

	private TetheredProcess(Process shell, long pid) {
		this.shell = shell;
		this.pid = pid;
		this.handle = ProcessHandle.of(pid).orElse(null);
	}

	/**
	 * Start a command with its stdout and stderr appended to {@code output}.
	 * @param orphanedFiles a directory the shell deletes when this JVM dies without
	 * releasing the process
	 */
	static TetheredProcess start(List<String> command, Path output, Path orphanedFiles) throws IOException {
		List<String> shellCommand = new ArrayList<>(
				List.of("/bin/sh", "-c", SCRIPT, "sh", output.toString(), orphanedFiles.toString()));
		shellCommand.addAll(command);
		Process shell = new ProcessBuilder(shellCommand).redirectError(Redirect.DISCARD).start();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(shell.getInputStream(), StandardCharsets.US_ASCII))) {
			String line = reader.readLine();
			if (line == null) {
				throw new IOException("/bin/sh exited before reporting the pid of " + command.get(0));
			}
			return new TetheredProcess(shell, Long.parseLong(line.trim()));
		}
		catch (IOException | NumberFormatException ex) {
			shell.destroyForcibly();
			throw (ex instanceof IOException io) ? io : new IOException("Unexpected pid from /bin/sh", ex);
		}
	}

	long pid() {
		return this.pid;
	}

	boolean isAlive() {
		return this.handle != null && this.handle.isAlive();
	}

	/**
	 * Send a signal that {@link ProcessHandle} cannot send and wait until it has taken
	 * effect.
	 */
	void signal(PosixSignal signal) {
		if (!isAlive()) {
			throw new IllegalStateException("Process " + this.pid + " is not running");
		}
		signal.send(this.pid);
	}

	/**
	 * Ask the process to exit (SIGTERM) and kill it if it has not within the timeout.
	 */
	void terminate(Duration timeout) {
		if (this.handle != null && this.handle.destroy() && await(() -> !isAlive(), timeout)) {
			return;
		}
		kill();
	}

	/**
	 * Kill the process (SIGKILL) and wait until it is gone.
	 */
	void kill() {
		if (this.handle != null) {
			this.handle.destroyForcibly();
			if (!await(() -> !isAlive(), EXIT_TIMEOUT)) {
				throw new IllegalStateException("Process " + this.pid + " survived SIGKILL");
			}
		}
	}

	/**
	 * End the shell, which kills the process if it still runs. Must be called once the
	 * process is no longer needed.
	 */
	void release() {
		try (OutputStream stdin = this.shell.getOutputStream()) {
			stdin.write(RELEASED);
			stdin.flush();
		}
		catch (IOException ex) {
			// The shell is gone already; waiting for it below tells.
		}
		try {
			if (!this.shell.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				// Kill the process first: without the shell nothing else would.
				kill();
				this.shell.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			kill();
			this.shell.destroyForcibly();
		}
		kill();
	}

	static boolean await(BooleanSupplier condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			try {
				Thread.sleep(POLL.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return condition.getAsBoolean();
			}
		}
		return true;
	}

}
