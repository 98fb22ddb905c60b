package io.github.distributedlock.redis;

import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * One reactive acquisition: the {@link WaitLoop} of the reactive engine, driven by
 * replies, messages and timers instead of a parked thread. What to do at each step is the
 * {@link Acquisition}'s decision, as in the blocking engine; this class sends, schedules
 * and keeps its place in the local line.
 * <p>
 * Try once; if the lock is taken, join the lock's {@link ReactiveWaitLine} (at once, if
 * the line is already there and subscribed). The head of the line, once the channel is
 * subscribed, reads the signal count, tries, and if the lock is still taken sleeps on a
 * timer until a signal arrives, at most until the holder's lease ends (as its reply
 * reported it), its wait time runs out or its hand-off request must be filed again. Only
 * an attempt's reply grants; a message only makes the head try again sooner. The attempts
 * of the head carry a {@link HandOffRequest}, as the blocking engine's do, so that
 * blocking and reactive waiters share one line in Redis.
 * <p>
 * Cancellation: while waiting, the wait ends at once and the request is withdrawn; while
 * an attempt is in flight, its reply still comes, and a hold it grants is released. The
 * state lock is held only for bookkeeping, never across a Redis call.
 */
final class ReactiveAcquisition extends ReactiveDriver<Grant> {

	private static final long ANY_SLEEP = -1;

	private final LockSpec spec;

	private final String owner;

	private final ReactiveLockCommands commands;

	private final ReactiveWaitLines lines;

	private final Acquisition acquisition;

	private final Deadline deadline;

	private final boolean lineUp;

	private @Nullable ReactiveWaitLine line;

	private boolean head;

	private boolean sleeping;

	// Counts the head's sleeps, so that a timer of an earlier one wakes nobody.
	private long sleeps;

	/**
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 */
	ReactiveAcquisition(LockSpec spec, String owner, boolean handOff, ReactiveLockCommands commands,
			ReactiveWaitLines lines, Scheduler timer, MonoSink<Grant> sink) {
		super(spec.name(), timer, sink);
		this.spec = spec;
		this.owner = owner;
		this.commands = commands;
		this.lines = lines;
		// A custom owner may hold the lock elsewhere: finding it ours is a re-entry. A
		// subscription's own owner never holds it before.
		this.acquisition = new Acquisition(spec, owner, LockOwners.isCustom(owner), NanoClock.SYSTEM);
		this.deadline = this.acquisition.deadline();
		this.lineUp = this.acquisition.linesUp(handOff);
	}

	@Override
	void begin() {
		if (this.lineUp && !this.acquisition.holdsIt() && this.lines.isHot(this.spec)) {
			// A lock waited for in this JVM a moment ago is likely taken: line up at
			// once,
			// so that the first attempt already files the hand-off request (as WaitLoop
			// does), instead of an attempt that only learns the lock is taken.
			joinLine();
			return;
		}
		attempt();
	}

	private void attempt() {
		attempt(null);
	}

	/**
	 * Send the next attempt, if the acquisition still runs.
	 * @param late a grant that came too late, which this attempt takes again (same hold
	 * id): released instead if the acquisition ended meanwhile, as nothing else would
	 */
	private void attempt(@Nullable Grant late) {
		Acquisition.@Nullable Attempt next;
		synchronized (this) {
			if (!running()) {
				next = null;
			}
			else {
				sending();
				next = this.acquisition.next(this.head ? heard() : null);
			}
		}
		if (next == null) {
			if (late != null) {
				release(late);
			}
			return;
		}
		Acquisition.Attempt sent = next;
		this.commands
			.acquire(this.spec, this.owner, next.hold(), next.remainingWaitMillis(), next.mayHaveIntent(),
					next.holdsIt(), next.request())
			.subscribe((result) -> replied(sent, result), this::failed);
	}

	private void replied(Acquisition.Attempt sent, AcquireResult result) {
		boolean running;
		boolean isHead;
		AttemptOutcome outcome;
		synchronized (this) {
			running = received();
			isHead = this.head;
			outcome = this.acquisition.replied(sent, result, this.head);
			if (this.line != null) {
				if (outcome instanceof AttemptOutcome.Held) {
					this.line.line().markProgress(System.nanoTime());
				}
				else if (!result.acquired()) {
					if (this.acquisition.lastHandOffNanos() != 0) {
						this.line.line().markProgress(this.acquisition.lastHandOffNanos());
					}
					this.line.line().holderSeen(this.deadline.holder());
				}
			}
		}
		Grant grant = (outcome instanceof AttemptOutcome.Held held) ? held.grant() : null;
		Grant late = (outcome instanceof AttemptOutcome.Late tooLate) ? tooLate.grant() : null;
		boolean retry = late != null && running && this.acquisition.retriesLateGrant();
		if (late != null && !retry) {
			// Granted too late to use, and no attempt follows: the hold may still be in
			// Redis.
			release(late);
		}
		if (!running) {
			// Cancelled (or closed) while the attempt was in flight.
			abandon(grant);
			return;
		}
		if (grant != null) {
			succeed(grant);
		}
		else if (late != null) {
			// Granted too late to use: again at once, from where this attempt was made.
			if (retry) {
				attempt(late);
			}
			else {
				fail(timeout());
			}
		}
		else if (outcome instanceof AttemptOutcome.Failed failed) {
			fail(failed.error());
		}
		else if (outcome == AttemptOutcome.OVER) {
			fail(timeout());
		}
		else if (isHead) {
			sleepAsHead();
		}
		else {
			joinLine();
		}
	}

	@Override
	void release(Grant grant) {
		this.commands.release(grant, 0).subscribe(null, (ex) -> {
		});
	}

	private LockTimeoutException timeout() {
		ReactiveWaitLine joined = this.line;
		return this.acquisition.timeout((joined != null) ? joined.line().holder() : null);
	}

	private void joinLine() {
		ReactiveWaitLine joined = this.lines.join(this.spec);
		boolean first;
		synchronized (this) {
			if (!running()) {
				this.lines.leave(joined);
				return;
			}
			this.line = joined;
			joined.line().holderSeen(this.deadline.holder());
			first = joined.join(this);
		}
		if (first) {
			promoted();
		}
		else {
			sleepInLine();
		}
	}

	/**
	 * Called by the line when this waiter becomes its head.
	 */
	void promoted() {
		ReactiveWaitLine joined;
		synchronized (this) {
			if (!running()) {
				return;
			}
			cancelSleep();
			this.head = true;
			joined = this.line();
			if (joined.isClosed()) {
				// The template is closing: the line fails this waiter next.
				return;
			}
			if (this.lineUp) {
				joined.line().expect(this.acquisition.fileRequest());
			}
			// Bounded like every sleep: a subscription that never comes is no reason to
			// sleep past the holder's lease.
			sleepAsHeadUntilWoken();
		}
		joined.whenSubscribed(() -> woken(ANY_SLEEP));
	}

	/**
	 * A waiter behind the head sleeps until it is promoted or its wait time runs out.
	 */
	private void sleepInLine() {
		synchronized (this) {
			if (!running() || this.head) {
				return;
			}
			long left = Math.min(this.deadline.remainingNanos(), Acquisition.MAX_SLEEP_NANOS);
			sleep(this::turnTimedOut, Math.max(0, left));
		}
	}

	private void turnTimedOut() {
		synchronized (this) {
			if (!running() || this.head) {
				return;
			}
			// The lock changed hands meanwhile: the wait time starts again.
			this.acquisition.restartOnProgress(heard().lastProgressNanos());
			if (this.deadline.remainingNanos() > 0) {
				// A wait longer than one timer, or restarted.
				sleepInLine();
				return;
			}
		}
		fail(timeout());
	}

	private void sleepAsHead() {
		Acquisition.Step step;
		synchronized (this) {
			if (!running()) {
				return;
			}
			step = this.acquisition.whileHead(heard());
			if (step == Acquisition.Step.SLEEP) {
				sleepAsHeadUntilWoken();
				return;
			}
		}
		if (step == Acquisition.Step.TRY) {
			attempt();
		}
		else {
			fail(timeout());
		}
	}

	/**
	 * Called by the line on every message while this waiter is its head.
	 */
	void signalled() {
		synchronized (this) {
			if (!running() || !this.sleeping || heard().signals() == this.acquisition.seenSignals()) {
				return;
			}
			if (!this.acquisition.calledToTry(heard())) {
				cancelSleep();
				sleepAsHeadUntilWoken();
				return;
			}
		}
		woken(ANY_SLEEP);
	}

	/**
	 * Sleep as the head until a signal, or the timer of this sleep: a timer that had
	 * already fired when a later sleep replaced it wakes nobody. Called with the state
	 * lock.
	 */
	private void sleepAsHeadUntilWoken() {
		long sleep = ++this.sleeps;
		this.sleeping = true;
		sleep(() -> woken(sleep), this.acquisition.sleepNanos());
	}

	/**
	 * Wake the head and try again, if it still sleeps the given sleep (or any, for
	 * {@link #ANY_SLEEP}).
	 */
	private void woken(long sleep) {
		synchronized (this) {
			if (!running() || !this.sleeping || (sleep != ANY_SLEEP && sleep != this.sleeps)) {
				return;
			}
			this.sleeping = false;
			cancelSleep();
		}
		attempt();
	}

	private ReactiveWaitLine line() {
		ReactiveWaitLine current = this.line;
		if (current == null) {
			throw new IllegalStateException("Not in line");
		}
		return current;
	}

	private WaitLine heard() {
		return line().line();
	}

	/**
	 * Leave the line and withdraw the request unless it won the lock.
	 */
	@Override
	Runnable ended(boolean won) {
		this.sleeping = false;
		Acquisition.Ending ending = this.acquisition.end(won);
		HandOffRequest filing = ending.forget();
		boolean withdraw = ending.withdraw() != null;
		boolean dropIntent = ending.dropIntent();
		ReactiveWaitLine joined = this.line;
		this.line = null;
		return () -> leave(joined, filing, withdraw, dropIntent);
	}

	private void leave(@Nullable ReactiveWaitLine joined, @Nullable HandOffRequest filing, boolean withdraw,
			boolean dropIntent) {
		if (joined != null) {
			if (filing != null) {
				joined.line().forget(filing);
			}
			joined.leave(this);
			this.lines.leave(joined);
		}
		if (withdraw && filing != null) {
			// A reservation for it passes on; a hold is never touched.
			this.commands.withdraw(this.spec, filing).subscribe(null, (ex) -> {
			});
		}
		if (dropIntent) {
			// Readers need not wait for a writer that no longer waits.
			this.commands.dropIntent(this.spec, this.owner).subscribe(null, (ex) -> {
			});
		}
	}

	@Override
	public String toString() {
		return "ReactiveAcquisition[" + this.spec.name() + "]";
	}

}
