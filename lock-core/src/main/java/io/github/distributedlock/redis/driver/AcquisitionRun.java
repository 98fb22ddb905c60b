package io.github.distributedlock.redis.driver;

import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;

/**
 * The life of one acquisition, shared by the driver's kinds of acquisition: it ends once,
 * with a grant, an error or a cancel, and its {@link Completion} hears of it at most once
 * (never after a cancel). A grant nobody will use is released, not left to its lease.
 * <p>
 * The state lock ({@code this}) is held only for bookkeeping, never across a Redis call.
 * Subclasses take it for theirs, and hold it to call the methods that say they need it.
 *
 * @param <G> what a won acquisition gives
 */
public abstract class AcquisitionRun<G> implements Acquiring {

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

	AcquisitionRun(LockName name, DriverCommands commands, LocalLines lines, Completion<G> completion,
			Consumer<G> release) {
		this.name = name;
		this.commands = commands;
		this.lines = lines;
		this.completion = completion;
		this.release = release;
	}

	/**
	 * Return, unstarted, the acquisition of one lock that a caller asks for: a
	 * {@link FairAcquisition} for a fair lock, else a {@link SingleAcquisition}. A
	 * re-entry of the caller that holds the lock under a cohort acquires as the cohort's
	 * owner, says it holds the lock and opens no cohort (docs/design/cohorting.md, rule
	 * 7).
	 * @param reentry the caller's re-entry under a cohort ({@link CohortReentry#start}),
	 * or {@code null} if it acquires as itself
	 * @param holdsIt whether the owner may hold the lock already
	 * ({@link HoldRegistry#holdsLocally})
	 * @param cohorts whether it may open a cohort or take a pass: not for a lock of a
	 * multi-lock (docs/design/cohorting.md)
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 */
	public static Acquiring of(LockSpec spec, String owner, @Nullable CohortReentry reentry, boolean holdsIt,
			boolean cohorts, boolean handOff, DriverCommands commands, LocalLines lines, Completion<Grant> completion) {
		if (reentry != null) {
			return reentry.acquisition((done) -> of(spec, reentry.owner(), true, false, handOff, commands, lines, done),
					completion);
		}
		return of(spec, owner, holdsIt, cohorts, handOff, commands, lines, completion);
	}

	/**
	 * Return, unstarted, the acquisition of one lock by the caller as itself: a
	 * {@link FairAcquisition} for a fair lock, else a {@link SingleAcquisition}.
	 */
	public static AcquisitionRun<Grant> of(LockSpec spec, String owner, boolean holdsIt, boolean cohorts,
			boolean handOff, DriverCommands commands, LocalLines lines, Completion<Grant> completion) {
		if (spec.kind().queuesInRedis()) {
			return new FairAcquisition(spec, owner, holdsIt, commands, lines, completion);
		}
		SingleAcquisition single = new SingleAcquisition(spec, owner, holdsIt, handOff, commands, lines, completion);
		if (!cohorts) {
			single.keepOutOfCohorts();
		}
		return single;
	}

	/**
	 * Return the id of the hold this acquisition asks for.
	 */
	public abstract String hold();

	/**
	 * Take the first step, unless the template closed: then fail at once.
	 */
	@Override
	public final void start() {
		if (this.lines.started(this)) {
			begin();
		}
		else {
			closed();
		}
	}

	/**
	 * Take the first step: an attempt or a place in line.
	 */
	abstract void begin();

	/**
	 * Release, without waiting, a grant that nobody will use.
	 */
	final void release(G grant) {
		this.release.accept(grant);
	}

	/**
	 * Called once, with the state lock, when the acquisition ends.
	 * @param won whether it won the lock while still running
	 * @param joined the line it was in or watched, or {@code null}
	 * @return the clean-up to run without the state lock: leave the line, and withdraw
	 * what was filed in Redis unless it won
	 */
	abstract Runnable ended(boolean won, @Nullable LocalLine joined);

	/**
	 * Called with the state lock.
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
	 * Note that the attempt's reply came. Called with the state lock.
	 * @return whether the acquisition still runs
	 */
	final boolean received() {
		this.inFlight = false;
		return running();
	}

	/**
	 * Run {@code wake} after the given delay. Called with the state lock.
	 */
	final void sleep(Runnable wake, long nanos) {
		this.sleep = this.commands.port().schedule(wake, nanos);
	}

	/**
	 * Send the next attempt, if the acquisition still runs and none is in flight; fail it
	 * instead once the template closed.
	 * @param late a grant that came too late, which the attempt takes again (same hold
	 * id); released instead if the acquisition ended or the template closed, as nothing
	 * else would
	 * @param next counts the next attempt and returns what sends it; called with the
	 * state lock, the attempt marked in flight
	 */
	final void attempt(@Nullable G late, Supplier<Runnable> next) {
		Runnable send = null;
		boolean closed = this.lines.isClosed();
		synchronized (this) {
			if (this.inFlight) {
				// The attempt in flight takes it again, or its reply releases it.
				return;
			}
			if (running() && !closed) {
				cancelSleep();
				sending();
				send = next.get();
			}
		}
		if (send != null) {
			send.run();
			return;
		}
		if (late != null) {
			release(late);
		}
		if (closed) {
			// No attempt goes out after the close, which may not have failed this run
			// yet.
			closed();
		}
	}

	/**
	 * Called with the state lock.
	 */
	final void cancelSleep() {
		LockPort.Cancellable current = this.sleep;
		this.sleep = null;
		if (current != null) {
			current.cancel();
		}
	}

	/**
	 * Called when the template closes ({@link LocalLines#close}), or finds the line it
	 * joined closed. An attempt in flight then ends by its reply, which releases what it
	 * won.
	 */
	final void closed() {
		fail(new LockAccessException(this.name, "the lock service is shut down", null));
	}

	/**
	 * Called by a line the acquisition watches, rather than waits in, on every signal and
	 * when it closes; acts only while asleep with no attempt in flight.
	 * @param turn whether the signal calls for another attempt, asked with the state lock
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

	final void succeed(G grant) {
		if (end(true)) {
			this.completion.granted(grant);
		}
		else {
			release(grant);
		}
	}

	/**
	 * Win with a grant decided under the state lock, so that no cancel comes between the
	 * decision and the win (a pass in memory, which nothing else would release). Called
	 * with the state lock, while running.
	 * @return the clean-up and the completion, to run without the state lock
	 */
	final Runnable wonNow(G grant) {
		this.state = State.DONE;
		cancelSleep();
		LocalLine joined = this.line;
		this.line = null;
		Runnable cleanUp = ended(true, joined);
		return () -> {
			this.lines.ended(this);
			cleanUp.run();
			this.completion.granted(grant);
		};
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
	 * what that attempt was granted.
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
	 * @return whether it stopped a running acquisition; if not, it had ended, and its
	 * completion hears (or heard) of the end, a grant included
	 */
	@Override
	public final boolean cancel() {
		boolean inFlight;
		synchronized (this) {
			if (this.state != State.RUNNING) {
				return this.state == State.CANCELLED;
			}
			this.state = State.CANCELLED;
			inFlight = this.inFlight;
		}
		if (!inFlight) {
			end(false);
		}
		return true;
	}

	/**
	 * End the acquisition once, and clean up after it.
	 * @return whether this call ended a running (not cancelled) acquisition
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
		this.lines.ended(this);
		cleanUp.run();
		return wasRunning;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.name + "]";
	}

}
