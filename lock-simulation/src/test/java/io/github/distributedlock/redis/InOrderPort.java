package io.github.distributedlock.redis;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.ForwardingPort;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * The port of an {@link InOrderClient}'s calls, as a Cluster client's connections carry
 * their commands: the commands on one lock run in Redis (one {@link SimulatedPort} is one
 * connection) and are read in the order they were sent (one connection to the node of the
 * lock's slot, whose replies come in order), a reply that comes before an earlier
 * command's held back until that one's came; and a command whose reply is not read within
 * the command timeout fails then ({@link #NO_REPLY}), its reply dropped when it comes.
 * The call's end is told once its commands are answered, within one command timeout
 * ({@code SettledRun}): a reply the simulated port holds back (a client paused before it
 * reads it) must keep a call waiting no longer than the driver's client would, and must
 * not let a later command's reply overtake it.
 */
final class InOrderPort extends ForwardingPort {

	/** What a command that got no reply within the command timeout fails with. */
	static final String NO_REPLY = "no reply within the command timeout";

	private final SimulatedPort port;

	private final long timeoutNanos;

	private final Consumer<String> notes;

	// The commands sent on each lock whose reply was not read yet, in the order sent.
	private final Map<String, Deque<Sent>> connections = new HashMap<>();

	// When the command whose reply is being told ran in Redis, or -1.
	private long ranNanos = -1;

	InOrderPort(SimulatedPort port, long timeoutNanos, Consumer<String> notes) {
		super(port);
		this.port = port;
		this.timeoutNanos = timeoutNanos;
		this.notes = notes;
	}

	/**
	 * Return when the command whose reply is being told ran in Redis: a grant's hold
	 * began then.
	 */
	long ranNanos() {
		if (this.ranNanos < 0) {
			throw new IllegalStateException("no reply is told now");
		}
		return this.ranNanos;
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		Deque<Sent> connection = this.connections.computeIfAbsent(name.toString(), (key) -> new ArrayDeque<>());
		Sent sent = new Sent(operation, reply);
		connection.add(sent);
		sent.timer = this.port.schedule(() -> timedOut(name, sent), this.timeoutNanos);
		this.port.run(name, operation, call, Completion.of((result) -> came(connection, sent, result, null),
				(error) -> came(connection, sent, null, error)));
	}

	private void timedOut(LockName name, Sent sent) {
		if (sent.told) {
			return;
		}
		sent.told = true;
		this.notes.accept(sent.operation + " got no reply within the command timeout");
		sent.reply.failed(new LockAccessException(name, NO_REPLY, null));
	}

	private void came(Deque<Sent> connection, Sent sent, @Nullable Object result, @Nullable Throwable error) {
		sent.came = true;
		sent.ranNanos = (error == null) ? this.port.ranNanos() : -1;
		sent.result = result;
		sent.error = error;
		while (!connection.isEmpty() && connection.peekFirst().came) {
			tell(connection.pollFirst());
		}
	}

	private void tell(Sent sent) {
		if (sent.told) {
			return;
		}
		sent.told = true;
		sent.timer.cancel();
		this.ranNanos = sent.ranNanos;
		try {
			if (sent.error != null) {
				sent.reply.failed(sent.error);
			}
			else {
				sent.reply.granted(sent.result);
			}
		}
		finally {
			this.ranNanos = -1;
		}
	}

	/**
	 * A command sent, until its reply came.
	 */
	private static final class Sent {

		final String operation;

		final Completion<@Nullable Object> reply;

		LockPort.Cancellable timer;

		boolean came;

		// Whether its caller was told its reply or its timeout.
		boolean told;

		long ranNanos;

		@Nullable Object result;

		@Nullable Throwable error;

		Sent(String operation, Completion<@Nullable Object> reply) {
			this.operation = operation;
			this.reply = reply;
		}

	}

}
