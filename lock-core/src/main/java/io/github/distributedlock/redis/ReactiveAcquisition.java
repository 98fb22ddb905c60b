package io.github.distributedlock.redis;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * One reactive acquisition: the {@link WaitLoop} of the reactive engine, as a state
 * machine driven by replies, messages and timers instead of a parked thread.
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
final class ReactiveAcquisition {

	private static final long ANY_SLEEP = -1;

	private enum State {

		RUNNING, DONE, CANCELLED

	}

	private final LockSpec spec;

	private final String owner;

	private final ReactiveLockCommands commands;

	private final ReactiveWaitLines lines;

	private final Scheduler timer;

	private final MonoSink<Grant> sink;

	private final ReactiveAttempts attempts;

	private final Deadline deadline;

	private final boolean lineUp;

	private State state = State.RUNNING;

	private @Nullable ReactiveWaitLine line;

	private boolean head;

	private boolean inFlight;

	private boolean sleeping;

	private @Nullable Disposable sleep;

	// Counts the head's sleeps, so that a timer of an earlier one wakes nobody.
	private long sleeps;

	private long seen;

	private long seenRetries;

	/**
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 */
	ReactiveAcquisition(LockSpec spec, String owner, boolean handOff, ReactiveLockCommands commands,
			ReactiveWaitLines lines, Scheduler timer, MonoSink<Grant> sink) {
		this.spec = spec;
		this.owner = owner;
		this.commands = commands;
		this.lines = lines;
		this.timer = timer;
		this.sink = sink;
		this.attempts = new ReactiveAttempts(spec, owner);
		this.deadline = this.attempts.deadline();
		this.lineUp = handOff && spec.kind().handsOver() && !this.deadline.isTryOnce();
	}

	/**
	 * Make the first attempt; the sink gets the grant, or a timeout or failure.
	 */
	void start() {
		this.sink.onCancel(this::cancel);
		if (this.lineUp && this.lines.isHot(this.spec)) {
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
		ReactiveAttempts.Next next;
		synchronized (this) {
			if (this.state != State.RUNNING) {
				return;
			}
			if (this.head) {
				this.seenRetries = this.line().retrySignals();
				this.seen = this.line().signals();
			}
			this.inFlight = true;
			next = this.attempts.next();
		}
		this.commands
			.acquire(this.spec, this.owner, this.attempts.hold(), next.remainingWaitMillis(), next.mayHaveIntent(),
					next.request())
			.subscribe((result) -> replied(result, next.sentNanos()), this::failed);
	}

	private void replied(AcquireResult result, long sentNanos) {
		State now;
		boolean isHead;
		Grant grant = null;
		synchronized (this) {
			this.inFlight = false;
			now = this.state;
			isHead = this.head;
			if (result.acquired()) {
				grant = this.attempts.grant(result, sentNanos, this.head);
				if (this.line != null) {
					this.line.markProgress(System.nanoTime());
				}
			}
			else {
				noted(result);
			}
		}
		if (now != State.RUNNING) {
			if (grant != null) {
				// Cancelled (or closed) while the attempt was in flight, and Redis
				// granted it anyway: nobody will use the hold.
				releaseQuietly(grant);
			}
			end(false);
			return;
		}
		if (grant != null) {
			succeed(grant);
		}
		else if (result.selfDeadlock()) {
			fail(new LockSelfDeadlockException(this.spec.name()));
		}
		else if (this.deadline.isTryOnce()) {
			fail(timeout());
		}
		else if (isHead) {
			sleepAsHead();
		}
		else {
			joinLine();
		}
	}

	private void releaseQuietly(Grant grant) {
		// A release that fails leaves the hold to end with its lease.
		this.commands.release(grant, 0).subscribe(null, (ex) -> {
		});
	}

	private void noted(AcquireResult result) {
		long now = System.nanoTime();
		if (this.attempts.noted(result, now)) {
			changedHands(now);
		}
		if (this.line != null) {
			this.line.holderSeen(this.deadline.holder());
		}
	}

	private LockTimeoutException timeout() {
		ReactiveWaitLine joined = this.line;
		return this.deadline.timeout(this.spec.name(), (joined != null) ? joined.holder() : null);
	}

	private void changedHands(long nanos) {
		if (this.line != null) {
			this.line.markProgress(nanos);
		}
		if (this.spec.progressAware()) {
			this.deadline.restartAt(nanos);
		}
	}

	private void joinLine() {
		ReactiveWaitLine joined = this.lines.join(this.spec);
		boolean first;
		synchronized (this) {
			if (this.state != State.RUNNING) {
				this.lines.leave(joined);
				return;
			}
			this.line = joined;
			joined.holderSeen(this.deadline.holder());
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
			if (this.state != State.RUNNING) {
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
				joined.expect(this.attempts.fileRequest());
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
			if (this.state != State.RUNNING || this.head) {
				return;
			}
			long left = Math.min(this.deadline.remainingNanos(), ReactiveAttempts.MAX_SLEEP_NANOS);
			this.sleep = this.timer.schedule(this::turnTimedOut, Math.max(0, left), TimeUnit.NANOSECONDS);
		}
	}

	private void turnTimedOut() {
		synchronized (this) {
			if (this.state != State.RUNNING || this.head) {
				return;
			}
			long progress = this.line().lastProgressNanos();
			if (this.spec.progressAware() && progress != 0) {
				// The lock changed hands meanwhile: the wait time starts again.
				this.deadline.restartIfLater(progress);
			}
			if (this.deadline.remainingNanos() > 0) {
				// A wait longer than one timer, or restarted.
				sleepInLine();
				return;
			}
		}
		fail(timeout());
	}

	private void sleepAsHead() {
		boolean now;
		synchronized (this) {
			if (this.state != State.RUNNING) {
				return;
			}
			long progress = this.line().lastProgressNanos();
			if (this.spec.progressAware() && progress != 0) {
				this.deadline.restartIfLater(progress);
			}
			if (this.deadline.remainingNanos() <= 0) {
				now = false;
			}
			else {
				now = this.line().signals() != this.seen && !onlyReservedElsewhere();
				if (!now) {
					sleepAsHeadUntilWoken();
					return;
				}
			}
		}
		if (now) {
			attempt();
		}
		else {
			fail(timeout());
		}
	}

	/**
	 * Return whether the signals since the last attempt were only reservations for other
	 * waiters, after which the lock is taken again: then take the hint (the claim may end
	 * before the lease we were told of) and sleep on. Called with the state lock.
	 */
	private boolean onlyReservedElsewhere() {
		if (this.line().retrySignals() != this.seenRetries) {
			return false;
		}
		reservedElsewhere();
		this.seen = this.line().signals();
		// A reservation for us (a call to try again) may have landed since the check
		// above: the count just read includes it, so only the retry count can still tell.
		return this.line().retrySignals() == this.seenRetries;
	}

	private long sleepNanos() {
		return this.attempts.sleepNanos();
	}

	/**
	 * Called by the line on every message while this waiter is its head.
	 */
	void signalled() {
		synchronized (this) {
			if (this.state != State.RUNNING || !this.sleeping || this.line().signals() == this.seen) {
				return;
			}
			if (onlyReservedElsewhere()) {
				cancelSleep();
				sleepAsHeadUntilWoken();
				return;
			}
		}
		woken(ANY_SLEEP);
	}

	private void reservedElsewhere() {
		WaitQueue.Reservation last = this.line().lastReservation();
		if (last == null) {
			return;
		}
		changedHands(last.receivedNanos());
		// A hint: it may make us try sooner, never later than the lease Redis told us of.
		this.deadline.holderMayEndSooner(last.claimMillis(), last.receivedNanos());
	}

	/**
	 * Sleep as the head until a signal, or the timer of this sleep: a timer that had
	 * already fired when a later sleep replaced it wakes nobody. Called with the state
	 * lock.
	 */
	private void sleepAsHeadUntilWoken() {
		long sleep = ++this.sleeps;
		this.sleeping = true;
		this.sleep = this.timer.schedule(() -> woken(sleep), sleepNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Wake the head and try again, if it still sleeps the given sleep (or any, for
	 * {@link #ANY_SLEEP}).
	 */
	private void woken(long sleep) {
		synchronized (this) {
			if (this.state != State.RUNNING || !this.sleeping || (sleep != ANY_SLEEP && sleep != this.sleeps)) {
				return;
			}
			this.sleeping = false;
			cancelSleep();
		}
		attempt();
	}

	private void cancelSleep() {
		Disposable current = this.sleep;
		this.sleep = null;
		if (current != null) {
			current.dispose();
		}
	}

	private ReactiveWaitLine line() {
		ReactiveWaitLine current = this.line;
		if (current == null) {
			throw new IllegalStateException("Not in line");
		}
		return current;
	}

	private void failed(Throwable error) {
		synchronized (this) {
			this.inFlight = false;
		}
		fail(error);
	}

	/**
	 * Called by the line when the template closes.
	 */
	void closed() {
		fail(new LockAccessException(this.spec.name(), "the lock service is shut down", null));
	}

	private void succeed(Grant grant) {
		if (end(true)) {
			this.sink.success(grant);
		}
		else {
			releaseQuietly(grant);
		}
	}

	private void fail(Throwable error) {
		if (end(false)) {
			this.sink.error(error);
		}
	}

	private void cancel() {
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
	 * Leave the line and withdraw the request unless it won the lock.
	 * @return whether this call ended a running acquisition (rather than a cancelled or
	 * ended one)
	 */
	private boolean end(boolean acquired) {
		boolean wasRunning;
		HandOffRequest filing;
		boolean withdraw;
		boolean dropIntent;
		ReactiveWaitLine joined;
		synchronized (this) {
			if (this.state == State.DONE) {
				return false;
			}
			wasRunning = this.state == State.RUNNING;
			this.state = State.DONE;
			this.sleeping = false;
			cancelSleep();
			filing = this.attempts.dropRequest();
			withdraw = filing != null && this.attempts.filed() && !(acquired && wasRunning);
			dropIntent = !(acquired && wasRunning) && this.attempts.heldBackByReaders();
			joined = this.line;
			this.line = null;
		}
		if (joined != null) {
			if (filing != null) {
				joined.forget(filing);
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
		return wasRunning;
	}

	@Override
	public String toString() {
		return "ReactiveAcquisition[" + this.spec.name() + "]";
	}

}
