package io.github.distributedlock.redis.driver;

import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.AttemptOutcome;
import io.github.distributedlock.redis.core.FairTurn;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;

import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a fair lock, driven by replies, messages and timers. The decisions
 * are the {@link Acquisition}'s. Fair waiters queue in Redis, in arrival order across
 * every process, not in a local line: each keeps its place by trying again every third of
 * the fair waiter timeout, and tries early only when a release names it as next (or,
 * first in line, when a plain release or lease end is heard). It listens to the lock's
 * {@link LocalLine} as a watcher.
 * <p>
 * Cancellation: while waiting, the wait ends at once and the waiter leaves the queue;
 * while an attempt is in flight, its reply still comes, and a hold it grants is released.
 * The state lock is held only for bookkeeping, never across a Redis call.
 */
public final class FairAcquisition extends AcquisitionRun<Grant> {

	private final Acquisition acquisition;

	private final LockSpec spec;

	private final FairTurn turn;

	// Called by the line on every signal, and when it closes.
	private final Runnable watcher = () -> watched(this::isTurn, this::attempt);

	/**
	 * @param holdsIt whether the owner may hold the lock already: then finding it ours is
	 * a re-entry rather than a hold left by a lost reply
	 */
	public FairAcquisition(LockSpec spec, String owner, boolean holdsIt, DriverCommands commands, LocalLines lines,
			Completion<Grant> completion) {
		super(spec.name(), commands, lines, completion, commands::releaseUnused);
		this.acquisition = new Acquisition(spec, owner, holdsIt, commands.port());
		this.spec = spec;
		this.turn = new FairTurn(spec, owner);
	}

	/**
	 * Return the id of the hold this acquisition asks for.
	 */
	public String hold() {
		return this.acquisition.hold();
	}

	@Override
	public void start() {
		attempt();
	}

	private void attempt() {
		attempt(null, this::next);
	}

	/**
	 * Count the next attempt and return what sends it. Called with the state lock.
	 */
	private Runnable next() {
		LocalLine joined = this.line;
		if (joined != null) {
			this.turn.attempting(joined.line());
		}
		Acquisition.Attempt sent = this.acquisition.next(null);
		return () -> this.commands.acquire(this.spec, this.acquisition.owner(), sent, (result) -> replied(sent, result),
				this::failed);
	}

	private void replied(Acquisition.Attempt sent, AcquireResult result) {
		AttemptOutcome outcome;
		boolean running;
		boolean retry;
		synchronized (this) {
			running = received();
			outcome = this.acquisition.replied(sent, result, this.line != null);
			retry = this.acquisition.retriesLateGrant();
			this.turn.replied(result.rank());
		}
		if (outcome instanceof AttemptOutcome.Held held) {
			if (running) {
				succeed(held.grant());
			}
			else {
				// Cancelled while the attempt was in flight: nobody will release it.
				abandon(held.grant());
			}
		}
		else if (!running) {
			abandon((outcome instanceof AttemptOutcome.Late late) ? late.grant() : null);
		}
		else if (outcome instanceof AttemptOutcome.Late late) {
			if (retry) {
				// Granted too late to use: again at once, with the same hold id.
				attempt(late.grant(), this::next);
			}
			else {
				release(late.grant());
				fail(this.acquisition.timeout(null));
			}
		}
		else if (outcome instanceof AttemptOutcome.Failed error) {
			fail(error.error());
		}
		else if (outcome == AttemptOutcome.OVER || this.acquisition.deadline().remainingNanos() <= 0) {
			fail(this.acquisition.timeout(null));
		}
		else {
			waitTurn();
		}
	}

	/**
	 * Wait for this waiter's turn: until a release names it (or, first in line, a plain
	 * release is heard), the holder's lease as last reported or the wait time ends, or it
	 * must call Redis to keep its place. The first wait joins the lock's line, and tries
	 * again once it is subscribed, so that no release is missed in between.
	 */
	private void waitTurn() {
		LocalLine joined;
		boolean first;
		boolean turn;
		synchronized (this) {
			if (!running()) {
				return;
			}
			long sleep = this.turn.sleepNanos(this.acquisition.deadline());
			sleep(this::attempt, sleep);
			LocalLine current = this.line;
			first = current == null;
			if (current == null) {
				current = this.lines.join(this.spec);
				current.watch(this.watcher);
				this.line = current;
			}
			joined = current;
			// A release heard while the attempt was in flight found it busy: its turn
			// now.
			turn = !first && isTurn(joined);
		}
		// Closed while an attempt was in flight, the line's signal found it busy too.
		if (joined.isClosed()) {
			closed();
		}
		else if (first) {
			joined.whenSubscribed(this::attempt);
		}
		else if (turn) {
			attempt();
		}
	}

	/**
	 * Return whether a release named this waiter as next, or, first in line, a plain
	 * release came since the last attempt. Called with the state lock.
	 */
	private boolean isTurn(LocalLine joined) {
		return this.turn.isTurn(joined.line());
	}

	/**
	 * Stop listening, and leave the queue in Redis unless the lock was won.
	 */
	@Override
	Runnable ended(boolean won, @Nullable LocalLine joined) {
		return () -> {
			if (joined != null) {
				joined.unwatch(this.watcher);
				this.lines.leave(joined);
			}
			if (!won) {
				// Otherwise the place expires with the fair waiter timeout.
				this.commands.leaveQueue(this.spec, this.acquisition.owner());
			}
		};
	}

}
