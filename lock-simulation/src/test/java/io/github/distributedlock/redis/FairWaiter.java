package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.redis.blocking.FairWait;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.AttemptOutcome;
import io.github.distributedlock.redis.core.FairTurn;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.redis.driver.FairAcquisition;
import io.github.distributedlock.redis.script.FairKind;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;

import org.jspecify.annotations.Nullable;

/**
 * One simulated acquisition of a fair lock: the steps of the reactive engine's
 * {@link FairAcquisition} (and its {@code AcquisitionRun}), on the virtual clock. Every
 * decision is the engine's own: the {@link Acquisition} says what an attempt carries and
 * what its reply means, the {@link FairTurn} how long to sleep and whether a message
 * makes it this waiter's turn, and {@link FairKind} builds the scripts
 * ({@code acquire-fair.lua}, {@code leave-fair.lua}, {@code release-fair.lua}). This
 * class only sequences them, as the driver does, and leaves the I/O to its {@link Io}:
 * the simulation's client sends the scripts with its faults and sets the timers.
 * <p>
 * A cancel ends a sleeping acquisition at once; with an attempt in flight, the reply ends
 * it, and a grant it brings is released (the release's reply read before the client goes
 * on, as the simulation's other clients do). An interrupt (the blocking {@link FairWait})
 * leaves an attempt in flight alone, and a grant its reply brings is the caller's; the
 * wait ends at its next sleep. Either way the waiter leaves the queue.
 */
final class FairWaiter {

	/**
	 * What the simulation does for a fair waiter.
	 */
	interface Io {

		/**
		 * Send an attempt's acquire script; tell {@code ran} of every run of it in Redis
		 * (with its reply, delivered or not), and {@code replied} of the reply the caller
		 * reads, with when the run that gave it ran.
		 */
		void acquire(ScriptCall call, java.util.function.Consumer<Object> ran,
				java.util.function.BiConsumer<Object, Long> replied);

		/**
		 * Run {@code wake} after {@code nanos}.
		 */
		void timer(long nanos, Runnable wake);

		/**
		 * Send a script, and run {@code then} once its reply is read.
		 */
		void send(ScriptCall call, String what, Runnable then);

		/**
		 * Release a grant nobody will use, and run {@code then} once the reply is read.
		 */
		void release(Grant grant, Runnable then);

		/**
		 * The acquisition won the grant, whose script ran at {@code ranNanos}.
		 */
		void held(Grant grant, long ranNanos);

		/**
		 * An attempt's reply refused the acquisition (a self-deadlock): throw if nothing
		 * explains it; the acquisition then ends without the lock.
		 */
		void refused(RuntimeException error);

		/**
		 * The acquisition ended without the lock: its wait ran out, or it was stopped.
		 */
		void ended(boolean stopped);

		/**
		 * Return whether an acquisition's error is one a fault that lost writes explains
		 * (it is counted); otherwise it fails the run.
		 */
		boolean failedAfterFault(RuntimeException error);

	}

	private enum State {

		RUNNING, DONE, CANCELLED

	}

	private final Acquisition acquisition;

	private final LockSpec spec;

	private final String owner;

	private final FairTurn turn;

	private final WaitLine line;

	private final Io io;

	private State state = State.RUNNING;

	private boolean inFlight;

	// The timer of the current sleep, or 0 when not asleep: a timer of an earlier sleep
	// wakes nothing.
	private long sleep;

	private long sleeps;

	// Whether it listens to its line yet (the driver joins it on its first wait).
	private boolean joined;

	private boolean interrupted;

	// Whether an attempt of this acquisition was granted by Redis, or joined the queue.
	private boolean granted;

	FairWaiter(Acquisition acquisition, WaitLine line, Io io) {
		this.acquisition = acquisition;
		this.spec = acquisition.spec();
		this.owner = acquisition.owner();
		this.turn = new FairTurn(this.spec, this.owner);
		this.line = line;
		this.io = io;
	}

	void begin() {
		attempt(null);
	}

	/**
	 * Return whether the acquisition still runs: neither ended nor cancelled.
	 */
	boolean running() {
		return this.state == State.RUNNING;
	}

	/**
	 * Return whether an attempt of this acquisition was ever granted in Redis.
	 */
	boolean granted() {
		return this.granted;
	}

	private void attempt(@Nullable Grant late) {
		if (this.inFlight) {
			return;
		}
		if (this.state != State.RUNNING) {
			if (late != null) {
				this.io.release(late, () -> {
				});
			}
			return;
		}
		this.sleep = 0;
		this.inFlight = true;
		if (this.joined) {
			this.turn.attempting(this.line);
		}
		Acquisition.Attempt sent = this.acquisition.next(null);
		ScriptCall call = this.spec.kind()
			.acquire(this.spec, new LockKind.Attempt(this.owner, sent.hold(), sent.remainingWaitMillis(),
					sent.mayHaveIntent(), sent.holdsIt(), sent.request()), LockSimulation.FENCE_IDLE_MS);
		this.io.acquire(call, (reply) -> {
			if (reply instanceof List<?> list && !list.isEmpty() && Long.valueOf(1).equals(list.get(0))) {
				this.granted = true;
			}
		}, (reply, ranNanos) -> replied(sent, reply, ranNanos));
	}

	private void replied(Acquisition.Attempt sent, Object reply, long ranNanos) {
		AcquireResult result = ScriptReplies.acquireResult(this.spec, (List<?>) reply);
		this.inFlight = false;
		boolean running = this.state == State.RUNNING;
		AttemptOutcome outcome = this.acquisition.replied(sent, result, this.joined);
		boolean retry = this.acquisition.retriesLateGrant();
		this.turn.replied(result.rank());
		if (outcome instanceof AttemptOutcome.Held held) {
			if (running) {
				this.state = State.DONE;
				this.sleep = 0;
				this.io.held(held.grant(), ranNanos);
			}
			else {
				abandon(held.grant());
			}
		}
		else if (!running) {
			abandon((outcome instanceof AttemptOutcome.Late late) ? late.grant() : null);
		}
		else if (outcome instanceof AttemptOutcome.Late late) {
			if (retry) {
				// Granted too late to use: again at once, with the same hold id.
				attempt(late.grant());
			}
			else {
				this.state = State.DONE;
				this.io.release(late.grant(), () -> leave(false));
			}
		}
		else if (outcome instanceof AttemptOutcome.Failed failed && this.io.failedAfterFault(failed.error())) {
			// The caller gets the error, and the driver leaves the queue.
			end(true);
		}
		else if (outcome instanceof AttemptOutcome.Failed failed) {
			this.io.refused(failed.error());
			end(false);
		}
		else if (outcome == AttemptOutcome.OVER || this.acquisition.deadline().remainingNanos() <= 0) {
			end(false);
		}
		else {
			waitTurn();
		}
	}

	/**
	 * Wait for the turn, as the driver does: until a release names this waiter (or, first
	 * in line, a plain release is heard), the holder's lease or the wait time ends, or
	 * the place must be kept. The first wait joins the line and tries again at once (the
	 * simulation's line is subscribed from the start).
	 */
	private void waitTurn() {
		if (this.state != State.RUNNING) {
			return;
		}
		if (this.interrupted) {
			// The blocking driver's next sleep throws for an interrupted thread.
			end(true);
			return;
		}
		long timer = ++this.sleeps;
		this.sleep = timer;
		this.io.timer(this.turn.sleepNanos(this.acquisition.deadline()), () -> {
			if (this.sleep == timer) {
				attempt(null);
			}
		});
		boolean first = !this.joined;
		this.joined = true;
		if (first || this.turn.isTurn(this.line)) {
			attempt(null);
		}
	}

	/**
	 * The line heard a message that signals its waiters.
	 */
	void signalled() {
		if (this.state != State.RUNNING || this.inFlight || this.sleep == 0 || !this.joined) {
			return;
		}
		if (this.turn.isTurn(this.line)) {
			attempt(null);
		}
	}

	/**
	 * Stop the acquisition: asleep, it ends at once; with an attempt in flight, a cancel
	 * leaves the end to the reply, an interrupt to the next sleep.
	 * @return whether it ended at once
	 */
	boolean stop(boolean interrupt) {
		if (this.state != State.RUNNING || this.interrupted) {
			return false;
		}
		if (!this.inFlight) {
			end(true);
			return true;
		}
		if (interrupt) {
			this.interrupted = true;
		}
		else {
			this.state = State.CANCELLED;
		}
		return false;
	}

	/**
	 * The attempt in flight got no reply: the acquisition fails, and leaves the queue
	 * ({@code AcquisitionRun.failed}; the blocking {@code FairWait} leaves in its
	 * {@code finally}). A hold the attempt may have taken in Redis is nobody's.
	 */
	void failed() {
		if (this.state == State.DONE) {
			return;
		}
		this.inFlight = false;
		end(true);
	}

	/**
	 * End an acquisition cancelled while its attempt was in flight, releasing what the
	 * attempt was granted anyway.
	 */
	private void abandon(@Nullable Grant grant) {
		this.state = State.DONE;
		this.sleep = 0;
		if (grant != null) {
			this.io.release(grant, () -> leave(true));
		}
		else {
			leave(true);
		}
	}

	/**
	 * End the acquisition without the lock: no more sleeps, and leave the queue.
	 * @param stopped whether it was stopped, rather than its wait time ran out
	 */
	private void end(boolean stopped) {
		this.state = State.DONE;
		this.sleep = 0;
		leave(stopped);
	}

	/**
	 * Leave the queue, and end once the reply is read: the blocking driver leaves before
	 * its caller goes on (and the reactive one's leave goes out on the connection before
	 * the caller's next command), so that the owner's next acquisition keeps its place.
	 */
	private void leave(boolean stopped) {
		this.io.send(FairKind.leave(this.spec, this.owner), "leave of the queue", () -> this.io.ended(stopped));
	}

}
