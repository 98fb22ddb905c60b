package io.github.distributedlock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.test.JvmProcess;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ChaosWorker} JVM: its history lines go to the run's {@link History}, other
 * lines to the queue that {@link #awaitLine} reads. The test can stop it gracefully, kill
 * it with SIGKILL, and freeze and thaw it with SIGSTOP and SIGCONT.
 */
final class WorkerProcess implements AutoCloseable {

	private static final String READY = "READY process=";

	private final String name;

	private final JvmProcess jvm;

	private volatile String processId = "";

	private WorkerProcess(WorkerConfig config, History history, Path directory) {
		this.name = config.name();
		this.jvm = JvmProcess.builder(ChaosWorker.class)
			.name("Worker " + config.name())
			// Small and cheap: the machine has two cores for Redis, the test JVM and
			// several workers.
			.jvmOptions(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k"))
			.args(config.toArgs())
			.errorTo(directory.resolve(config.name() + ".err"))
			.lines((line) -> route(line, history))
			.start();
	}

	static WorkerProcess start(WorkerConfig config, History history, Path directory) {
		return new WorkerProcess(config, history, directory);
	}

	private @Nullable String route(String line, History history) {
		if (Event.isEvent(line)) {
			history.add(Event.parse(line));
			return null;
		}
		if (line.startsWith(READY)) {
			this.processId = line.substring(READY.length());
		}
		return line;
	}

	String name() {
		return this.name;
	}

	/**
	 * Return the id that the worker's hand-off requests carry
	 * ({@code <claim>:<process id>.<n>}).
	 */
	String processId() {
		return this.processId;
	}

	boolean isPaused() {
		return this.jvm.isPaused();
	}

	long pid() {
		return this.jvm.pid();
	}

	boolean isAlive() {
		return this.jvm.isAlive();
	}

	/**
	 * Wait for a line that starts with the prefix.
	 */
	String awaitLine(String prefix, Duration timeout) {
		return this.jvm.awaitLine(prefix, timeout);
	}

	/**
	 * Ask the worker to finish its current operations and exit, without waiting: see
	 * {@link #awaitStopped}.
	 */
	void requestStop() {
		if (this.jvm.isPaused()) {
			this.jvm.resume();
		}
		try {
			this.jvm.send("stop");
		}
		catch (RuntimeException ex) {
			// Already gone.
		}
	}

	/**
	 * Wait until a worker asked to stop has exited and its whole history is read.
	 */
	void awaitStopped(Duration timeout) {
		this.jvm.awaitExit(timeout);
	}

	/**
	 * Kill with SIGKILL: no release, no shutdown hook, and whatever it had not printed is
	 * lost.
	 * @return when it was killed
	 */
	long kill9() {
		long now = System.nanoTime();
		this.jvm.kill();
		return now;
	}

	/**
	 * Freeze with SIGSTOP: its threads, lease watchdog and connections all stop, as in a
	 * long GC pause.
	 */
	void pause() {
		this.jvm.pause();
	}

	void resume() {
		this.jvm.resume();
	}

	/**
	 * Freeze for the given time, counted from the freeze.
	 * @return when it froze and when it thawed, in {@link System#nanoTime()}
	 */
	Freeze freezeFor(Duration duration) throws InterruptedException {
		long paused = System.nanoTime();
		pause();
		TimeUnit.NANOSECONDS.sleep(paused + duration.toNanos() - System.nanoTime());
		long thawed = System.nanoTime();
		resume();
		return new Freeze(paused, thawed);
	}

	/**
	 * When a worker froze and thawed, in {@link System#nanoTime()}.
	 */
	record Freeze(long pausedNanos, long thawedNanos) {
	}

	@Override
	public void close() {
		this.jvm.close();
	}

}
