package io.github.distributedlock.chaos;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.redis.ProtocolTimings;
import io.github.distributedlock.test.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * A fault armed on a {@link ChaosProxy}: the next command of one name that a client sends
 * is forwarded, Redis runs it and answers, and the proxy drops that reply and closes the
 * client's connection. A client that re-sends what was written but not answered (Lettuce
 * does, after reconnecting) then runs the command a second time. Thread-safe.
 * <p>
 * A fault may also require the command's first argument (for {@code EVALSHA}, the
 * script's SHA-1, for {@code FCALL} the function's name, so that it hits one script among
 * several in flight), or hit either of two commands ({@link #onScript}: a script run as a
 * function or with {@code EVALSHA}, whichever the engine sends), and run a step of the
 * test at one of two moments that a test cannot otherwise catch: just before Redis gets
 * the command, and between Redis's first run and the re-send. The steps run on the
 * proxy's threads and must not send through the proxy; a step that fails is reported by
 * {@link #awaitDropped}.
 * <p>
 * The reply may also be held back first ({@link #heldFor}): the connection then hangs for
 * that long before it is closed; or held back and then delivered instead of dropped
 * ({@link #delayedBy}), the connection staying open, so that the reply and every reply
 * after it on the connection arrive that much later, in order.
 */
final class ReplyDrop {

	private static final Runnable NOTHING = () -> {
	};

	private final String command;

	private final @Nullable String argument;

	private final @Nullable ReplyDrop or;

	private final Runnable beforeForwarding;

	private final Runnable afterRunning;

	private final Duration hold;

	private final boolean delivers;

	private final boolean unsent;

	private final CountDownLatch dropped = new CountDownLatch(1);

	private volatile List<String> matched = List.of();

	private volatile @Nullable Throwable stepFailure;

	private volatile String reply = "";

	private volatile long doneNanos;

	ReplyDrop(String command) {
		this(command, null, null, NOTHING, NOTHING, Duration.ZERO, false, false);
	}

	private ReplyDrop(String command, @Nullable String argument, @Nullable ReplyDrop or, Runnable beforeForwarding,
			Runnable afterRunning, Duration hold, boolean delivers, boolean unsent) {
		this.command = command.toUpperCase(Locale.ROOT);
		this.argument = argument;
		this.or = or;
		this.beforeForwarding = beforeForwarding;
		this.afterRunning = afterRunning;
		this.hold = hold;
		this.delivers = delivers;
		this.unsent = unsent;
	}

	/**
	 * Return a fault on the next run of one of the engine's scripts, or of any script:
	 * its {@code FCALL}, or its {@code EVALSHA} where the engine runs it as a script.
	 * @param script the script's file name, such as {@code extend.lua}, or {@code null}
	 * for any script
	 * @return a fault not armed yet
	 */
	static ReplyDrop onScript(@Nullable String script) {
		ReplyDrop evalSha = new ReplyDrop("EVALSHA", (script != null) ? ProtocolTimings.scriptSha(script) : null, null,
				NOTHING, NOTHING, Duration.ZERO, false, false);
		return new ReplyDrop("FCALL", (script != null) ? ProtocolTimings.functionName(script) : null, evalSha, NOTHING,
				NOTHING, Duration.ZERO, false, false);
	}

	/**
	 * Return this fault, hitting only a command that the server runs: where it has no
	 * Functions (Redis 6.2), an {@link #onScript} fault hits the {@code EVALSHA} alone,
	 * as each template's first {@code FCALL} is refused there without running.
	 * @param redis the server behind the proxy
	 * @return a fault not armed yet
	 */
	ReplyDrop runnableOn(RedisServer redis) {
		if (this.or == null || !this.command.equals("FCALL") || redis.hasFunctions()) {
			return this;
		}
		return new ReplyDrop(this.or.command, this.or.argument, null, this.beforeForwarding, this.afterRunning,
				this.hold, this.delivers, this.unsent);
	}

	/**
	 * Return this fault, hitting only a command whose first argument is this one (in any
	 * case).
	 * @param argument the first argument, such as the SHA-1 after {@code EVALSHA}
	 * @return a fault not armed yet
	 */
	ReplyDrop withArgument(String argument) {
		return new ReplyDrop(this.command, argument, this.or, this.beforeForwarding, this.afterRunning, this.hold,
				this.delivers, this.unsent);
	}

	/**
	 * Return this fault, running a step once the command matched and before it is
	 * forwarded to Redis.
	 * @param step what to do
	 * @return a fault not armed yet
	 */
	ReplyDrop beforeForwarding(Runnable step) {
		return new ReplyDrop(this.command, this.argument, this.or, step, this.afterRunning, this.hold, this.delivers,
				this.unsent);
	}

	/**
	 * Return this fault, running a step once Redis has answered the command and before
	 * the connection is closed, so before the client can send it again; for a reply
	 * {@link #delayedBy delayed}, before it is delivered.
	 * @param step what to do
	 * @return a fault not armed yet
	 */
	ReplyDrop afterRunning(Runnable step) {
		return new ReplyDrop(this.command, this.argument, this.or, this.beforeForwarding, step, this.hold,
				this.delivers, this.unsent);
	}

	/**
	 * Return this fault, holding the reply back for this long, from the moment it reached
	 * the proxy, before the connection is closed: the client's commands get no reply
	 * meanwhile.
	 * @param hold how long
	 * @return a fault not armed yet
	 */
	ReplyDrop heldFor(Duration hold) {
		return new ReplyDrop(this.command, this.argument, this.or, this.beforeForwarding, this.afterRunning, hold,
				false, false);
	}

	/**
	 * Return this fault, delivering the reply this long after it reached the proxy
	 * instead of dropping it; the connection stays open, and the replies that follow on
	 * it wait behind this one, as they would behind a slow network.
	 * @param delay how long
	 * @return a fault not armed yet
	 */
	ReplyDrop delayedBy(Duration delay) {
		return new ReplyDrop(this.command, this.argument, this.or, this.beforeForwarding, this.afterRunning, delay,
				true, false);
	}

	/**
	 * Return this fault, never forwarding the command: Redis never runs it. The proxy
	 * forwards nothing more of the connection, holds it open for this long, then closes
	 * it. Held longer than the client's command timeout, the client gives up on the
	 * command before the connection drops, so it does not send it again after it
	 * reconnects: a command cancelled before it was written, which never runs.
	 * @param hold how long
	 * @return a fault not armed yet
	 */
	ReplyDrop unsent(Duration hold) {
		return new ReplyDrop(this.command, this.argument, this.or, this.beforeForwarding, this.afterRunning, hold,
				false, true);
	}

	/**
	 * Return whether the command is never forwarded.
	 */
	boolean unsent() {
		return this.unsent;
	}

	/**
	 * Return how long the reply is held back.
	 */
	Duration hold() {
		return this.hold;
	}

	/**
	 * Return whether the reply is delivered late rather than dropped.
	 */
	boolean delivers() {
		return this.delivers;
	}

	boolean matches(List<byte[]> args) {
		return matchesThis(args) || (this.or != null && this.or.matchesThis(args));
	}

	private boolean matchesThis(List<byte[]> args) {
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

	/**
	 * Note the start of the reply, as the proxy delivered it late.
	 */
	void delivering(byte[] bytes) {
		this.reply = new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.ISO_8859_1);
	}

	/**
	 * Redis answered the command whose reply is {@link #delayedBy delayed}: run the step
	 * now, before the reply is delivered.
	 */
	void answered() {
		step(this.afterRunning);
	}

	void dropped() {
		this.doneNanos = System.nanoTime();
		if (!this.delivers) {
			step(this.afterRunning);
		}
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
	 * Wait until Redis has answered the command and the proxy has dropped the reply (or,
	 * {@link #delayedBy delayed}, delivered it).
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

	/**
	 * Return the start of the reply as the proxy delivered it late (RESP, such as
	 * {@code *2\r\n:1\r\n:<token>\r\n}), or empty if it was dropped or not delivered yet.
	 * @return up to 64 bytes of it
	 */
	String reply() {
		return this.reply;
	}

	/**
	 * Return when the proxy delivered or dropped the reply ({@link System#nanoTime()}),
	 * or 0 while it has not.
	 * @return the time
	 */
	long doneNanos() {
		return this.doneNanos;
	}

	@Override
	public String toString() {
		String wanted = (this.argument != null) ? this.command + " " + this.argument : this.command;
		if (this.or != null) {
			wanted += " or "
					+ ((this.or.argument != null) ? this.or.command + " " + this.or.argument : this.or.command);
		}
		String what = this.delivers ? "delayed " : (this.hold.isZero() ? "" : "held and dropped ");
		return what + "reply of the next " + wanted + ((this.matched.isEmpty()) ? "" : " " + this.matched);
	}

}
