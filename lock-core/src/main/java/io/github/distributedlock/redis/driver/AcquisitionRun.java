package io.github.distributedlock.redis.driver;

import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The life of one acquisition, shared by the driver's kinds of acquisition: it runs until
 * it ends once, with a grant, an error or a cancel, and its {@link Completion} hears of
 * it at most once (never after a cancel). A grant that nobody will use is released, never
 * left to its lease when a release can end it sooner.
 * <p>
 * Cancellation: while no attempt is in flight, the acquisition ends at once; otherwise
 * the attempt's reply ends it, and a grant the reply brings is released. The state lock
 * ({@code this}) is held only for bookkeeping, never across a Redis call: subclasses take
 * the same lock for theirs, and call the methods said to need it only while they hold it.
 *
 * @param <G> what its completion hears when the acquisition succeeds
 */
public abstract class AcquisitionRun<G> {

	private enum State {

		RUNNING, DONE, CANCELLED

	}

	final DriverCommands commands;

	final LocalLines lines;

	private final LockName name;

	private final Completion<G> completion;

	private final Consumer<G> release;

	private State state = State.RUNNING;

	private boolean inFlight;

	private LockPort.@Nullable Cancellable sleep;

	// The lock's line it waits in or watches, if any: guarded by the state lock.
	@Nullable LocalLine line;

	/**
	 * @param name the name of the lock that a failure names
	 * @param release releases a grant that nobody will use (see {@link #release})
	 */
	AcquisitionRun(LockName name, DriverCommands commands, LocalLines lines, Completion<G> completion,
			Consumer<G> release) {
		this.name = name;
		this.commands = commands;
		this.lines = lines;
		this.completion = completion;
		this.release = release;
	}

	/**
	 * Start acquiring with the first step, an attempt or a place in line; its completion
	 * hears what was acquired, or a timeout or failure.
	 */
	public abstract void start();

	/**
	 * Release a grant that nobody will use, without waiting for the reply: a release that
	 * fails leaves the hold to end with its lease.
	 */
	final void release(G grant) {
		this.release.accept(grant);
	}

	/**
	 * Called with the state lock, once, when the acquisition ends: forget what ties it to
	 * the lock's line, and say what to clean up once the lock is released.
	 * @param won whether the acquisition ends with the lock won, while it still ran
	 * @param joined the line it was in or watched, which it no longer is, or {@code null}
	 * @return the clean-up to run without the state lock: leave the line, and withdraw
	 * what the acquisition filed in Redis unless it won
	 */
	abstract Runnable ended(boolean won, @Nullable LocalLine joined);

	/**
	 * Return whether the acquisition still runs. Called with the state lock.
	 */
	final boolean running() {
		return this.state == State.RUNNING;
	}

	/**
	 * Note that an attempt is sent: a cancel now leaves the end to its reply. Called with
	 * the state lock.
	 */
	final void sending() {
		this.inFlight = true;
	}

	/**
	 * Note that the reply of the attempt in flight came. Called with the state lock.
	 * @return whether the acquisition still runs
	 */
	final boolean received() {
		this.inFlight = false;
		return running();
	}

	/**
	 * Sleep until the given time has passed, then wake. Called with the state lock.
	 */
	final void sleep(Runnable wake, long nanos) {
		this.sleep = this.commands.port().schedule(wake, nanos);
	}

	/**
	 * Send the next attempt, if the acquisition still runs and none is in flight.
	 * @param late what came too late, which this attempt takes again (same hold id):
	 * released instead if the acquisition ended meanwhile, as nothing else would
	 * @param next counts the next attempt and returns what sends it; called with the
	 * state lock, the attempt marked in flight
	 */
	final void attempt(@Nullable G late, Supplier<Runnable> next) {
		Runnable send = null;
		synchronized (this) {
			if (this.inFlight) {
				// It takes what came too late again, with the same hold id, or its reply
				// ends the acquisition with a release.
				return;
			}
			if (running()) {
				cancelSleep();
				sending();
				send = next.get();
			}
		}
		if (send != null) {
			send.run();
		}
		else if (late != null) {
			release(late);
		}
	}

	/**
	 * Cancel the current sleep, if any. Called with the state lock.
	 */
	final void cancelSleep() {
		LockPort.Cancellable current = this.sleep;
		this.sleep = null;
		if (current != null) {
			current.cancel();
		}
	}

	/**
	 * Called by the line when the template closes.
	 */
	final void closed() {
		fail(new LockAccessException(this.name, "the lock service is shut down", null));
	}

	/**
	 * Called by a line the acquisition watches, rather than waits in, on every signal and
	 * when it closes: unless an attempt is in flight or it is not asleep, fail if the
	 * line closed, else try again if the signal calls for it.
	 * @param turn whether the signal calls for another attempt, asked with the state lock
	 * @param attempt sends the next attempt
	 */
	final void watched(Predicate<LocalLine> turn, Runnable attempt) {
		LocalLine joined;
		boolean again;
		synchronized (this) {
			joined = this.line;
			if (!running() || this.inFlight || this.sleep == null || joined == null) {
				return;
			}
			again = turn.test(joined);
		}
		if (joined.isClosed()) {
			closed();
		}
		else if (again) {
			attempt.run();
		}
	}

	/**
	 * End with the given grant, or release it if the acquisition ended meanwhile.
	 */
	final void succeed(G grant) {
		if (end(true)) {
			this.completion.granted(grant);
		}
		else {
			release(grant);
		}
	}

	final void fail(Throwable error) {
		if (end(false)) {
			this.completion.failed(error);
		}
	}

	/**
	 * The attempt in flight failed to get a reply.
	 */
	final void failed(Throwable error) {
		synchronized (this) {
			this.inFlight = false;
		}
		fail(error);
	}

	/**
	 * End an acquisition that stopped running while its attempt was in flight, releasing
	 * what the attempt was granted anyway: nobody will use it.
	 */
	final void abandon(@Nullable G grant) {
		if (grant != null) {
			release(grant);
		}
		end(false);
	}

	/**
	 * Stop acquiring: at once while no attempt is in flight; otherwise the attempt's
	 * reply ends it, releasing what it grants. Its completion hears nothing more.
	 */
	public final void cancel() {
		boolean inFlight;
		synchronized (this) {
			if (this.state != State.RUNNING) {
				return;
			}
			this.state = State.CANCELLED;
			inFlight = this.inFlight;
		}
		if (!inFlight) {
			// Otherwise the reply ends it, releasing what it may have granted.
			end(false);
		}
	}

	/**
	 * End the acquisition, if nothing ended it before, and clean up after it.
	 * @return whether this call ended a running acquisition (rather than a cancelled or
	 * ended one)
	 */
	private boolean end(boolean acquired) {
		boolean wasRunning;
		Runnable cleanUp;
		synchronized (this) {
			if (this.state == State.DONE) {
				return false;
			}
			wasRunning = this.state == State.RUNNING;
			this.state = State.DONE;
			cancelSleep();
			LocalLine joined = this.line;
			this.line = null;
			cleanUp = ended(acquired && wasRunning, joined);
		}
		cleanUp.run();
		return wasRunning;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.name + "]";
	}

}
