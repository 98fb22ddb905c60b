package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The signals that freeze and thaw a process, which {@link ProcessHandle} cannot send.
 */
public enum PosixSignal {

	/**
	 * Freeze the process (SIGSTOP), as in a long GC pause: its threads, timers and
	 * connections all stop.
	 */
	STOP,

	/**
	 * Let a stopped process run again (SIGCONT).
	 */
	CONT;

	private static final Duration STATE_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Send this signal with {@code kill -s} and wait until the process has actually
	 * stopped or continued, so that callers can rely on the new state right away.
	 * @param pid the process id
	 * @throws IllegalStateException if {@code kill} fails or the process does not change
	 * state within 5 seconds
	 */
	public void send(long pid) {
		try {
			Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -s \"$1\" \"$2\"", "sh", name(),
					Long.toString(pid))
				.redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			int exitCode = kill.waitFor();
			if (exitCode != 0) {
				throw new IllegalStateException(
						"kill -s " + name() + " " + pid + " failed with exit code " + exitCode + ": " + output);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run kill -s " + name() + " " + pid, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending " + name() + " to " + pid, ex);
		}
		// The signal is delivered asynchronously.
		if (!TetheredProcess.await(() -> hasTakenEffect(pid), STATE_TIMEOUT)) {
			throw new IllegalStateException("Process " + pid + " did not " + ((this == STOP) ? "stop" : "continue")
					+ " within " + STATE_TIMEOUT + " of SIG" + name());
		}
	}

	private boolean hasTakenEffect(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			char state = stat.charAt(stat.lastIndexOf(')') + 2);
			return (state == 'T' || state == 't') == (this == STOP);
		}
		catch (IOException | RuntimeException ex) {
			// No procfs (macOS), or the process is gone: trust the signal.
			return true;
		}
	}

}
