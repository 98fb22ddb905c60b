package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.ForwardingPort;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.simulation.PubSub;
import org.jspecify.annotations.Nullable;

/**
 * The driver's {@link LockPort} in the simulation, so that the simulated clients run the
 * engine's own driver: its timers are events of the run's virtual clock, its scripts run
 * on the run's {@link io.github.distributedlock.simulation.RedisModel} after a drawn
 * delay, with the run's faults (a lost reply failed after the command timeout, a command
 * run twice with only the second reply delivered, a client paused before it reads a
 * reply), and its subscriptions are the model's, their messages delivered with the run's
 * message faults. Every callback is an event of its own, so none comes while the caller
 * is inside the port. Single-threaded, as the run is.
 * <p>
 * A port is one connection: its commands run in Redis in the order sent, each after its
 * own drawn delay but never before one sent earlier, as a Lettuce connection writes them.
 * What the fault model sends outside that order stays outside it: a lost command that
 * runs late (as on a pool's other connection). A re-sent command runs again before what
 * was sent after it, as Lettuce sends it again on a reconnect (seeds 1116, 3034: a
 * re-sent attempt filed its request again after its withdrawal). A command whose reply is
 * not read when the connection's command timeout passes fails then, as a Lettuce command
 * timeout fails it, whatever Redis did: one that has not run (its last run; held back by
 * a stall) may still run later, and one that ran (its reply held back by a pause) has its
 * reply dropped.
 */
final class SimulatedPort implements LockPort {

	/**
	 * What a port needs of the run it is part of: its clock and events, its draws, and
	 * its model of Redis.
	 */
	interface World {

		long nanos();

		/**
		 * Engine code reads the clock through a port: the run may pause the reading
		 * thread right there, moving the clock on before the read returns.
		 * @param port the port's name
		 */
		default long clockRead(String port) {
			return nanos();
		}

		/**
		 * The run's own hold and request ids ({@code SimulatedIds}).
		 */
		UniqueIds ids();

		/**
		 * Schedule an action.
		 * @param what its name in the trace; empty for one that may do nothing (a
		 * command's timeout), which notes what it does: only a world whose
		 * {@link #commandTimeoutNanos()} is set is given one
		 */
		void at(long delayNanos, String what, Runnable action);

		/**
		 * Schedule an action that needs Redis: a stall holds it back.
		 */
		void redisAt(long delayNanos, String what, Runnable action);

		/**
		 * Draw a network delay.
		 */
		long network();

		/**
		 * Draw how long a reply takes to be read: a network delay, or a client paused.
		 */
		long replyDelay();

		/**
		 * Draw whether a command runs twice, with only the second reply delivered, and if
		 * so how long after the first run the second comes; or -1.
		 */
		long resend(String operation, ScriptCall call);

		/**
		 * Draw whether the command's reply is lost.
		 */
		LostReplies.@Nullable Cut cut();

		/**
		 * Return the connections' command timeout: a command whose reply is not read by
		 * then fails, though it may have run or still run later; or -1 for none (its
		 * reply comes whenever it ran).
		 */
		default long commandTimeoutNanos() {
			return -1;
		}

		Object eval(ScriptCall call);

		void note(String what);

		PubSub pubSub();

		/**
		 * Route what the subscriber hears to {@code heard} (with the run's message
		 * faults), or nowhere once it is {@code null}.
		 */
		void route(PubSub.Subscriber subscriber, @Nullable Consumer<String> heard);

		/**
		 * The reply (or the failure) of a command sent at {@code sentNanos} is being
		 * heard by its caller; {@code null} and -1 once it was.
		 */
		default void hearing(@Nullable String operation, long sentNanos) {
		}

		/**
		 * Draw whether the subscription being made has a gap ({@link SubscriptionGaps}),
		 * or {@code null} for none.
		 */
		default @Nullable Gap subscriptionGap() {
			return null;
		}

		/**
		 * A gap of a subscription of the port that had been confirmed ends: what was
		 * published meanwhile is lost, and the port is about to tell its listener.
		 */
		default void gapEnded(String port) {
		}

		/**
		 * A subscription of the port is about to tell its listener a message.
		 */
		default void heard(String port, String message) {
		}

	}

	/**
	 * A gap in a subscription: from {@code afterNanos} after it was made, for
	 * {@code lengthNanos}, its connection is down and it hears nothing; then it is
	 * confirmed again, or, if {@code ends}, it fails. A gap not {@code told} ends with
	 * the subscription hearing again, its listener told nothing: a planted bug. A gap
	 * {@code refused} is a subscribe that throws: the port cannot subscribe at all.
	 */
	record Gap(long afterNanos, long lengthNanos, boolean ends, boolean told, boolean refused) {

		Gap untold() {
			return new Gap(this.afterNanos, this.lengthNanos, false, false, false);
		}

	}

	/**
	 * Told of each script a port runs, before it is sent, and of its end.
	 */
	interface Calls {

		/**
		 * @return whether to send it (a planted bug may drop it)
		 */
		default boolean sending(String operation, ScriptCall call) {
			return true;
		}

		/**
		 * It is about to run in Redis (each run, if it runs twice).
		 */
		default void running(String operation, ScriptCall call) {
		}

		/**
		 * It ran in Redis, with this reply, whether or not the reply reaches the caller.
		 */
		default void ran(String operation, ScriptCall call, Object reply) {
		}

		/**
		 * It never reached Redis, and its reply never comes.
		 */
		default void neverRan(String operation, ScriptCall call) {
		}

		/**
		 * It runs late, after its caller's command timeout, so after the caller's next
		 * commands, outside its connection's order (it runs in Redis then, its reply
		 * lost).
		 */
		default void ranLate(String operation, ScriptCall call) {
		}

		/**
		 * Its caller will hear of it at {@code atNanos}: its reply ({@code replies}), or
		 * its failure once its command timeout has passed. Told when that is drawn: as it
		 * is sent, for a reply that will be lost; as it runs, for one that comes and for
		 * one that would be read after its timeout; at its timeout, for one a stall held
		 * back.
		 */
		default void hears(String operation, ScriptCall call, long atNanos, boolean replies) {
		}

		/**
		 * Its reply is read, before the caller hears it: {@code reply} is {@code null} if
		 * none came, else its run in Redis ended at {@code ranNanos}.
		 */
		default void ended(String operation, @Nullable Object reply, long ranNanos) {
		}

		/**
		 * The caller heard its reply, or its failure.
		 */
		default void read(String operation) {
		}

	}

	/**
	 * How a port runs a script ({@link LockPort#run}).
	 */
	@FunctionalInterface
	interface Runs {

		void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply);

	}

	private static final Calls NONE = new Calls() {
	};

	private final String name;

	private final World world;

	private final Calls calls;

	// When the command whose reply is being read ran in Redis, or -1.
	private long ranNanos = -1;

	// The commands sent on this connection that did not run yet, in the order sent.
	private final ArrayDeque<Sent> connection = new ArrayDeque<>();

	SimulatedPort(String name, World world) {
		this(name, world, NONE);
	}

	/**
	 * @param name who the events name: a client, or a JVM's lines
	 */
	SimulatedPort(String name, World world, Calls calls) {
		this.name = name;
		this.world = world;
		this.calls = calls;
	}

	@Override
	public long nanoTime() {
		return this.world.clockRead(this.name);
	}

	@Override
	public UniqueIds ids() {
		return this.world.ids();
	}

	/**
	 * Return when the command whose reply the caller is reading now ran in Redis: a
	 * grant's hold began then.
	 */
	long ranNanos() {
		if (this.ranNanos < 0) {
			throw new IllegalStateException(this.name + " reads no reply now");
		}
		return this.ranNanos;
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		boolean[] cancelled = new boolean[1];
		this.world.at(Math.max(0, delayNanos), this.name + " wakes (timer)", () -> {
			if (!cancelled[0]) {
				task.run();
			}
		});
		return () -> cancelled[0] = true;
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		run(name, operation, call, reply, () -> {
		});
	}

	/**
	 * Return this port, but for {@code ran}, which runs each time a script sent through
	 * it has run in Redis, whether or not its reply reaches the caller (a release that
	 * keeps its lock for a minimum hold: Redis keeps it from then on).
	 */
	LockPort whenRan(Runnable ran) {
		return running(this, (name, operation, call, reply) -> run(name, operation, call, reply, ran));
	}

	/**
	 * Return a port that is {@code port} but for how it runs scripts: a planted bug may
	 * change what is sent, or what its caller hears.
	 */
	static LockPort running(LockPort port, Runs runs) {
		return new ForwardingPort(port) {

			@Override
			public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
				runs.run(name, operation, call, reply);
			}

		};
	}

	private void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply,
			Runnable ran) {
		if (!this.calls.sending(operation, call)) {
			return;
		}
		String what = this.name + " " + operation;
		long sent = this.world.nanos();
		LostReplies.Cut cut = this.world.cut();
		if (cut != null) {
			this.calls.hears(operation, call, sent + cut.timeoutNanos(), false);
			if (cut.runs() && cut.lateNanos() >= 0) {
				// Outside the connection's order, as on a pool's other connection.
				this.calls.ranLate(operation, call);
				this.world.redisAt(cut.lateNanos(), what + " runs late, after its timeout",
						() -> ran(operation, call, eval(operation, call), ran));
			}
			else if (cut.runs()) {
				Sent command = new Sent(what + " (its reply will be lost)");
				command.action = () -> ran(operation, call, eval(operation, call), ran);
				inOrder(command, this.world.network());
			}
			else {
				this.world.note("           " + what + " never reaches redis");
				this.calls.neverRan(operation, call);
			}
			this.world.at(cut.timeoutNanos(), what + " timed out", () -> timedOut(name, operation, sent, reply));
			return;
		}
		long resend = this.world.resend(operation, call);
		Sent command = new Sent(what + ((resend >= 0) ? " (re-sent later)" : ""));
		command.action = () -> {
			Object first = eval(operation, call);
			ran(operation, call, first, ran);
			if (resend >= 0 && command.timedOut) {
				// Lettuce writes again on a reconnect only a command that is not done:
				// one that timed out is not (seed 1027: a stalled attempt, failed, its
				// request withdrawn, ran again after the withdrawal and left the request
				// in the line).
				this.world.note("           " + what + " is not sent again: its caller heard its timeout");
			}
			if (resend < 0 || command.timedOut) {
				replyLater(what, operation, call, sent, first, reply, command);
				return;
			}
			// Sent again on the connection, as Lettuce does on a reconnect, before what
			// was sent after it.
			Sent again = new Sent(what + " re-sent");
			again.action = () -> {
				Object second = eval(operation, call);
				ran(operation, call, second, ran);
				replyLater(what, operation, call, sent, second, reply, command);
			};
			this.connection.addFirst(again);
			reaches(again, resend);
		};
		inOrder(command, this.world.network());
		long timeout = this.world.commandTimeoutNanos();
		if (timeout >= 0) {
			this.world.at(timeout, "", () -> {
				if (command.replies) {
					return;
				}
				this.world.note(String.format("%9.3f ms  %s timed out (%s)",
						(this.world.nanos() - 1_000_000 * LockSimulation.MS) / 1e6, what,
						command.answered ? "ran, its reply not read yet" : "not run yet"));
				if (!command.answered) {
					// Held back (a stall): the caller hears the timeout; the command
					// still runs once Redis gets to it, its reply lost.
					command.timedOut = true;
					this.calls.hears(operation, call, this.world.nanos(), false);
				}
				timedOut(name, operation, sent, reply);
			});
		}
	}

	/**
	 * Send a command on the connection: it reaches Redis after {@code delayNanos}, and
	 * runs then, or once those sent before it ran.
	 */
	private void inOrder(Sent command, long delayNanos) {
		this.connection.add(command);
		reaches(command, delayNanos);
	}

	/**
	 * Let a command of the connection reach Redis after {@code delayNanos}, and run what
	 * reached it in order.
	 */
	private void reaches(Sent command, long delayNanos) {
		this.world.redisAt(delayNanos, command.what + " reaches redis", () -> {
			command.reached = true;
			if (this.connection.peek() != command) {
				this.world.note("           " + command.what + " waits behind " + this.connection.peek().what);
			}
			while (!this.connection.isEmpty() && this.connection.peek().reached) {
				this.connection.poll().action.run();
			}
		});
	}

	private void timedOut(LockName name, String operation, long sent, Completion<@Nullable Object> reply) {
		this.calls.ended(operation, null, -1);
		this.world.hearing(operation, sent);
		try {
			reply.failed(new LockAccessException(name, "no reply to its " + operation + " within the timeout", null));
		}
		finally {
			this.world.hearing(null, -1);
		}
		this.calls.read(operation);
	}

	private Object eval(String operation, ScriptCall call) {
		this.calls.running(operation, call);
		return this.world.eval(call);
	}

	private void ran(String operation, ScriptCall call, Object result, Runnable ran) {
		this.calls.ran(operation, call, result);
		ran.run();
	}

	private void replyLater(String what, String operation, ScriptCall call, long sent, Object result,
			Completion<@Nullable Object> reply, Sent command) {
		command.answered = true;
		if (command.timedOut) {
			this.world.note("           " + what + " ran after its timeout: its reply is lost");
			return;
		}
		long ran = this.world.nanos();
		long delay = this.world.replyDelay();
		long timeout = this.world.commandTimeoutNanos();
		if (timeout >= 0 && ran + delay - sent >= timeout) {
			// Read after its timeout (a client paused): Lettuce failed the command at
			// its timeout, whatever Redis did, and drops the reply.
			this.world.note("           " + what + " ran, but its reply would be read after its timeout: lost");
			this.calls.hears(operation, call, sent + timeout, false);
			return;
		}
		command.replies = true;
		this.calls.hears(operation, call, ran + delay, true);
		this.world.at(delay, what + " replied " + result, () -> {
			this.calls.ended(operation, result, ran);
			this.ranNanos = ran;
			this.world.hearing(operation, sent);
			try {
				reply.granted(result);
			}
			finally {
				this.ranNanos = -1;
				this.world.hearing(null, -1);
			}
			this.calls.read(operation);
		});
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		Gap gap = this.world.subscriptionGap();
		if (gap != null && gap.refused()) {
			throw new IllegalStateException(this.name + " cannot subscribe: its listener container is destroyed");
		}
		PubSub pubSub = this.world.pubSub();
		PubSub.Subscriber subscriber = pubSub.subscribe(this.name, channels.toArray(new String[0]));
		// Whether it was cancelled (or failed), and whether its connection is down.
		boolean[] cancelled = new boolean[1];
		boolean[] down = new boolean[1];
		boolean[] confirmed = new boolean[1];
		this.world.route(subscriber, (message) -> {
			if (!cancelled[0] && !down[0]) {
				this.world.heard(this.name, message);
				listener.message(message.getBytes(StandardCharsets.UTF_8));
			}
		});
		this.world.at(this.world.network(), this.name + " subscribed", () -> {
			if (!cancelled[0] && !down[0]) {
				confirmed[0] = true;
				listener.subscribed();
			}
		});
		Runnable cancel = () -> {
			if (!cancelled[0]) {
				cancelled[0] = true;
				pubSub.disconnect(subscriber);
				this.world.route(subscriber, null);
			}
		};
		if (gap != null) {
			this.world.at(gap.afterNanos(), this.name + "'s subscription connection drops", () -> down[0] = true);
			this.world.at(gap.afterNanos() + gap.lengthNanos(),
					this.name + "'s subscription " + (gap.ends() ? "fails" : "is confirmed again"), () -> {
						if (cancelled[0]) {
							return;
						}
						down[0] = false;
						if (confirmed[0]) {
							this.world.gapEnded(this.name);
						}
						confirmed[0] = !gap.ends();
						if (!gap.told()) {
							return;
						}
						if (gap.ends()) {
							cancel.run();
							listener.lost(new IllegalStateException("the subscription's connection dropped"));
						}
						else {
							listener.subscribed();
						}
					});
		}
		return cancel::run;
	}

	@Override
	public String toString() {
		return "SimulatedPort[" + this.name + "]";
	}

	/**
	 * A command sent on the connection: whether it reached Redis, whether its last run
	 * (the one whose reply is read) ran, whether its reply is read before its timeout,
	 * and whether its caller heard its timeout before it ran.
	 */
	private static final class Sent {

		private final String what;

		private Runnable action = () -> {
		};

		private boolean reached;

		private boolean answered;

		private boolean replies;

		private boolean timedOut;

		Sent(String what) {
			this.what = what;
		}

	}

}
