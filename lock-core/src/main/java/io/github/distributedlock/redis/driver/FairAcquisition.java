package io.github.distributedlock.redis.driver;

import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.AttemptOutcome;
import io.github.distributedlock.redis.core.FairTurn;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;

import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a fair lock, driven by replies, messages and timers; the
 * {@link Acquisition} decides. Fair waiters queue in Redis, in arrival order across every
 * process, not in a local line: each keeps its place by trying again every third of the
 * fair waiter timeout. Watching the lock's {@link LocalLine}, it tries early only when a
 * release names it next (or, first in line, when a plain release or lease end is heard).
 * <p>
 * A cancel while waiting leaves the queue; the rest is {@link AcquisitionRun}'s.
 */
public final class FairAcquisition extends AcquisitionRun<Grant> {

	private final Acquisition acquisition;

	private final LockSpec spec;

	private final FairTurn turn;

	private final Runnable watcher = () -> watched(this::isTurn, this::attempt);

	/**
	 * @param holdsIt as for {@link SingleAcquisition}
	 */
	public FairAcquisition(LockSpec spec, String owner, boolean holdsIt, DriverCommands commands, LocalLines lines,
			Completion<Grant> completion) {
		super(spec.name(), commands, lines, completion, commands::releaseUnused);
		this.acquisition = new Acquisition(spec, owner, holdsIt, commands.port(), commands.port().ids());
		this.spec = spec;
		this.turn = new FairTurn(spec, owner, this.acquisition.hold());
	}

	@Override
	public String hold() {
		return this.acquisition.hold();
	}

	@Override
	void begin() {
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
		return () -> this.commands.acquire(this.spec, sent, (result) -> replied(sent, result), this::failed);
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
	 * Sleep until this waiter's turn, the holder's lease as last reported or the wait
	 * time ends, or it must call Redis to keep its place. The first wait joins the lock's
	 * line and tries again once it is subscribed, so no release is missed.
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
			// A release heard during the attempt found it busy: its turn now.
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
	 * Called with the state lock.
	 */
	private boolean isTurn(LocalLine joined) {
		return this.turn.isTurn(joined.line());
	}

	@Override
	Runnable ended(boolean won, @Nullable LocalLine joined) {
		return () -> {
			if (joined != null) {
				joined.unwatch(this.watcher);
				this.lines.leave(joined);
			}
			if (!won) {
				// Otherwise the place expires with the fair waiter timeout.
				this.commands.leaveQueue(this.spec, this.acquisition.owner(), this.acquisition.hold());
			}
		};
	}

}
