package io.github.distributedlock.chaos;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A fault armed on a {@link ChaosProxy}: the next command of one name that a client sends
 * is forwarded, Redis runs it and answers, and the proxy drops that reply and closes the
 * client's connection. A client that re-sends what was written but not answered (Lettuce
 * does, after reconnecting) then runs the command a second time. Thread-safe.
 * <p>
 * A fault may also require the command's first argument (for {@code EVALSHA}, the
 * script's SHA-1, so that it hits one script among several in flight), and run a step of
 * the test at one of two moments that a test cannot otherwise catch: just before Redis
 * gets the command, and between Redis's first run and the re-send. The steps run on the
 * proxy's threads and must not send through the proxy; a step that fails is reported by
 * {@link #awaitDropped}.
 */
final class ReplyDrop {

	private static final Runnable NOTHING = () -> {
	};

	private final String command;

	private final @Nullable String argument;

	private final Runnable beforeForwarding;

	private final Runnable afterRunning;

	private final CountDownLatch dropped = new CountDownLatch(1);

	private volatile List<String> matched = List.of();

	private volatile @Nullable Throwable stepFailure;

	ReplyDrop(String command) {
		this(command, null, NOTHING, NOTHING);
	}

	private ReplyDrop(String command, @Nullable String argument, Runnable beforeForwarding, Runnable afterRunning) {
		this.command = command.toUpperCase(Locale.ROOT);
		this.argument = argument;
		this.beforeForwarding = beforeForwarding;
		this.afterRunning = afterRunning;
	}

	/**
	 * Return this fault, hitting only a command whose first argument is this one (in any
	 * case).
	 * @param argument the first argument, such as the SHA-1 after {@code EVALSHA}
	 * @return a fault not armed yet
	 */
	ReplyDrop withArgument(String argument) {
		return new ReplyDrop(this.command, argument, this.beforeForwarding, this.afterRunning);
	}

	/**
	 * Return this fault, running a step once the command matched and before it is
	 * forwarded to Redis.
	 * @param step what to do
	 * @return a fault not armed yet
	 */
	ReplyDrop beforeForwarding(Runnable step) {
		return new ReplyDrop(this.command, this.argument, step, this.afterRunning);
	}

	/**
	 * Return this fault, running a step once Redis has answered the command and before
	 * the connection is closed, so before the client can send it again.
	 * @param step what to do
	 * @return a fault not armed yet
	 */
	ReplyDrop afterRunning(Runnable step) {
		return new ReplyDrop(this.command, this.argument, this.beforeForwarding, step);
	}

	boolean matches(List<byte[]> args) {
		if (args.isEmpty()
				|| !new String(args.get(0), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT).equals(this.command)) {
			return false;
		}
		return this.argument == null
				|| (args.size() > 1 && new String(args.get(1), StandardCharsets.UTF_8).equalsIgnoreCase(this.argument));
	}

	void matched(List<byte[]> args) {
		this.matched = args.stream().map((arg) -> new String(arg, StandardCharsets.UTF_8)).toList();
		step(this.beforeForwarding);
	}

	void dropped() {
		step(this.afterRunning);
		this.dropped.countDown();
	}

	private void step(Runnable step) {
		try {
			step.run();
		}
		catch (Throwable ex) {
			// On the proxy's thread nobody would see it: awaitDropped reports it.
			this.stepFailure = ex;
		}
	}

	/**
	 * Wait until Redis has answered the command and the proxy has dropped the reply.
	 * @param timeout how long to wait
	 * @return whether it happened
	 * @throws AssertionError if a step of the test that the fault ran failed
	 */
	boolean awaitDropped(Duration timeout) throws InterruptedException {
		boolean done = this.dropped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		Throwable failure = this.stepFailure;
		if (failure != null) {
			throw new AssertionError("A step run by the " + this + " failed", failure);
		}
		return done;
	}

	/**
	 * Return the command whose reply was dropped, as the client sent it.
	 * @return its name and arguments, or empty while none matched
	 */
	List<String> command() {
		return this.matched;
	}

	@Override
	public String toString() {
		String wanted = (this.argument != null) ? this.command + " " + this.argument : this.command;
		return "reply of the next " + wanted + ((this.matched.isEmpty()) ? "" : " " + this.matched);
	}

}
