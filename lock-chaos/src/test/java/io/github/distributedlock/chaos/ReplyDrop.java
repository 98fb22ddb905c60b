package io.github.distributedlock.chaos;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A fault armed on a {@link ChaosProxy}: the next command of one name that a client sends
 * is forwarded, Redis runs it and answers, and the proxy drops that reply and closes the
 * client's connection. A client that re-sends what was written but not answered (Lettuce
 * does, after reconnecting) then runs the command a second time. Thread-safe.
 */
final class ReplyDrop {

	private final String command;

	private final CountDownLatch dropped = new CountDownLatch(1);

	private volatile List<String> matched = List.of();

	ReplyDrop(String command) {
		this.command = command.toUpperCase(Locale.ROOT);
	}

	boolean matches(List<byte[]> args) {
		return !args.isEmpty()
				&& new String(args.get(0), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT).equals(this.command);
	}

	void matched(List<byte[]> args) {
		this.matched = args.stream().map((arg) -> new String(arg, StandardCharsets.UTF_8)).toList();
	}

	void dropped() {
		this.dropped.countDown();
	}

	/**
	 * Wait until Redis has answered the command and the proxy has dropped the reply.
	 * @param timeout how long to wait
	 * @return whether it happened
	 */
	boolean awaitDropped(Duration timeout) throws InterruptedException {
		return this.dropped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
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
		return "reply of the next " + this.command + ((this.matched.isEmpty()) ? "" : " " + this.matched);
	}

}
