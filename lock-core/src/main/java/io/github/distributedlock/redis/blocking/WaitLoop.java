package io.github.distributedlock.redis.blocking;

import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.NanoClock;
import io.github.distributedlock.redis.core.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition on the caller's thread: try the lock, and if it is taken, wait for a
 * wake-up and try again until the lock is ours or the wait time is over.
 * <p>
 * The steps, each the core's {@link Waiting} decision:
 * <ol>
 * <li>Try once. Most locks are free, and this is the only command sent.</li>
 * <li>Join the lock's local {@link WaitQueue} and wait for our turn: local waiters line
 * up in FIFO order, and only the first talks to Redis.</li>
 * <li>Make sure the release channel is subscribed before trying again, so no release is
 * missed.</li>
 * <li>Try, and if the lock is still taken wait for a signal for at most the holder's
 * remaining lease (a crashed holder is noticed when its lease ends, without polling) and
 * at most our remaining wait time.</li>
 * </ol>
 * The attempts of step 4 also file a {@linkplain HandOffRequest request}, which keeps
 * this waiter's place in the lock's line across processes: the last holder's release
 * reserves the lock for the oldest request and tells its waiter, whose next attempt takes
 * it. The message is only a hint: the lock is ours when, and only when, an attempt's
 * reply says so, and the lease is counted from before that attempt was sent. The request
 * is filed again at least every {@link HandOffRequest#REFILE_NANOS} and withdrawn when
 * the wait ends without the lock (which passes a reservation for it on). Fair locks wait
 * in {@link FairWait} instead.
 * <p>
 * This loop sends the attempts, parks the thread and keeps its place in the local line.
 * It returns what it won; it registers nothing. Not thread-safe: each acquisition has its
 * own loop.
 */
public final class WaitLoop {

	private final LockSpec spec;

	private final Acquisition acquisition;

	private final Waiting waiting;

	private final LockAttempts attempts;

	private final LockCommands commands;

	private final WaitQueues queues;

	// The waiter's local line once it joined one, whose sightings of the holder its
	// timeout reports if it made no attempt of its own; its place there.
	private @Nullable WaitQueue line;

	private WaitQueue.@Nullable Place place;

	// Whether an interrupt threw an attempt's reply away: the undoing attempt then waited
	// up to a command timeout for a Redis that may be stalled, and the withdrawal is not
	// waited for.
	private boolean unanswered;

	/**
	 * @param holds the holds of the template, which say whether the owner holds the lock
	 * through a local handle already
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 */
	public WaitLoop(LockSpec spec, String owner, HoldRegistry holds, boolean handOff, LockCommands commands,
			WaitQueues queues) {
		this.spec = spec;
		this.acquisition = new Acquisition(spec, owner, holds.holdsLocally(owner, spec.lockKey()), NanoClock.SYSTEM);
		this.waiting = new Waiting(this.acquisition, handOff);
		this.attempts = new LockAttempts(this.waiting, holds, commands);
		this.commands = commands;
		this.queues = queues;
	}

	/**
	 * Run the acquisition.
	 * @return what was won, or {@code null} if the wait time ran out (see
	 * {@link #timeout()})
	 */
	public @Nullable Grant run() {
		LockCommands.refuseIfInterrupted(this.spec.name());
		Grant grant = null;
		try {
			grant = attemptAndWait();
			return grant;
		}
		finally {
			if (grant == null && this.acquisition.heldBackByReaders()) {
				// Timed out, interrupted or failed: readers need not wait for this
				// writer.
				this.commands.dropIntentAsync(this.spec, this.acquisition.owner());
			}
		}
	}

	/**
	 * Build the exception for a wait that ran out.
	 */
	public LockTimeoutException timeout() {
		WaitQueue queue = this.line;
		return this.acquisition.timeout((queue != null) ? queue.line().holder() : null);
	}

	private @Nullable Grant attemptAndWait() {
		WaitQueue hot = this.queues.peek(this.spec.queueId());
		Waiting.Next next = this.waiting.begin(hot != null);
		if (hot != null && next instanceof Waiting.Send) {
			// A release is heard only once the subscription is complete: it is, so a
			// head of this line may sleep on the count read before this attempt.
			this.waiting.seenBeforeFirstAttempt(hot.line(), hot.signals());
		}
		Grant grant = null;
		boolean failed = true;
		try {
			grant = steps(next);
			failed = false;
			return grant;
		}
		catch (InterruptedException ex) {
			failed = false;
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.spec.name(), ex);
		}
		catch (LockInterruptedException | LockSelfDeadlockException ex) {
			failed = false;
			throw ex;
		}
		finally {
			leaveLine(grant != null, failed);
		}
	}

	private @Nullable Grant steps(Waiting.Next first) throws InterruptedException {
		Waiting.Next next = first;
		while (true) {
			if (next instanceof Waiting.Send send) {
				WaitQueue queue = this.line;
				if (queue != null) {
					// Shut down meanwhile: say so, rather than fail on a closed
					// connection.
					this.queues.checkOpen(queue, this.spec.name());
				}
				AcquireResult result;
				try {
					result = this.attempts.send(send.attempt());
				}
				catch (LockInterruptedException ex) {
					this.unanswered = true;
					this.attempts.undoAttempt();
					if (this.spec.kind().queuesInRedis()) {
						// The attempt (or its undoing) may have joined the fair queue,
						// and a place left there would be named next by a release.
						leaveFairQueue();
					}
					throw ex;
				}
				boolean outside = !this.waiting.isHead();
				next = this.waiting.replied(send.attempt(), result);
				if (outside && next == Waiting.Next.JOIN_LINE && this.spec.kind().queuesInRedis()) {
					return new FairWait(this.attempts, result.rank(), this.commands, this.queues).run();
				}
			}
			else if (next == Waiting.Next.JOIN_LINE) {
				next = joinLine();
			}
			else if (next instanceof Waiting.AwaitTurn turn) {
				next = awaitTurn(turn);
			}
			else if (next instanceof Waiting.Sleep sleep) {
				next = sleep(sleep);
			}
			else if (next instanceof Waiting.Hold hold) {
				return hold.grant();
			}
			else if (next instanceof Waiting.GiveUp giveUp) {
				if (giveUp.release() != null) {
					this.attempts.releaseQuietly(giveUp.release());
				}
				return null;
			}
			else if (next instanceof Waiting.Fail failure) {
				throw failure.error();
			}
			else {
				throw new IllegalStateException("Lock '" + this.spec.name() + "': nothing to do next");
			}
		}
	}

	/**
	 * Leave the fair queue after an interrupted attempt, without waiting for the reply:
	 * the undoing attempt already waited up to a command timeout for Redis, which may be
	 * stalled, and the leave goes behind it on a shared connection.
	 */
	private void leaveFairQueue() {
		try {
			this.commands.leaveQueueAsync(this.spec, this.acquisition.owner());
		}
		catch (RuntimeException ex) {
			// The place expires with the fair waiter timeout.
		}
	}

	private Waiting.Next joinLine() {
		WaitQueue queue = this.queues.join(this.spec);
		this.line = queue;
		this.queues.waiting(1);
		WaitQueue.Place joined = queue.join();
		this.place = joined;
		boolean first = queue.hasTurn(joined);
		return this.waiting.joined(queue.line(), first, queue.subscribed().isDone());
	}

	private Waiting.Next awaitTurn(Waiting.AwaitTurn turn) throws InterruptedException {
		WaitQueue queue = queue();
		WaitQueue.Place waiting = place();
		long nanos = Math.max(turn.nanos(), this.acquisition.deadline().remainingNanos());
		if (queue.awaitTurn(waiting, nanos)) {
			return this.waiting.promoted(queue.subscribed().isDone());
		}
		this.queues.checkOpen(queue, this.spec.name());
		return this.waiting.turnTimedOut(turn.ticket());
	}

	/**
	 * Sleep as the head: until the channel is subscribed, if it is not yet, or until a
	 * signal the core acts on, or until the sleep's time is over.
	 */
	private Waiting.Next sleep(Waiting.Sleep sleep) throws InterruptedException {
		WaitQueue queue = queue();
		this.queues.checkOpen(queue, this.spec.name());
		if (!queue.subscribed().isDone()) {
			queue.awaitSubscribed(sleep.nanos());
			return this.waiting.woken(Waiting.ANY_TICKET);
		}
		return sleepOn(queue, sleep);
	}

	private Waiting.Next sleepOn(WaitQueue queue, Waiting.Sleep sleep) throws InterruptedException {
		long until = System.nanoTime() + sleep.nanos();
		while (true) {
			long left = until - System.nanoTime();
			if (left <= 0) {
				return this.waiting.woken(sleep.ticket());
			}
			long seen = this.acquisition.seenSignals();
			boolean signalled = this.waiting.linesUp() ? queue.awaitSignalAsHead(seen, left)
					: queue.awaitSignal(seen, left);
			this.queues.checkOpen(queue, this.spec.name());
			if (!signalled) {
				return this.waiting.woken(sleep.ticket());
			}
			Waiting.Next next = this.waiting.signalled();
			if (next != Waiting.Next.NONE) {
				return next;
			}
		}
	}

	/**
	 * Leave the local line, withdrawing the request if the wait ended without the lock
	 * (which passes on a reservation for it, and never touches a hold). After a Redis
	 * failure, or after an interrupted attempt (whose undoing waited for Redis already),
	 * the request is withdrawn without waiting for the reply, so that a failing Redis is
	 * not waited for twice (and a request left behind would cost the others a claim).
	 */
	private void leaveLine(boolean won, boolean failed) {
		WaitQueue queue = this.line;
		WaitQueue.Place waiting = this.place;
		if (queue == null || waiting == null) {
			return;
		}
		try {
			Acquisition.Ending ending = this.waiting.end(won);
			withdraw(ending.withdraw(), (failed || this.unanswered) && !queue.isClosed());
		}
		finally {
			queue.leave(waiting);
			this.queues.waiting(-1);
			this.queues.leave(queue);
		}
	}

	private void withdraw(@Nullable HandOffRequest request, boolean failed) {
		if (request == null) {
			return;
		}
		if (failed) {
			try {
				this.commands.withdrawAsync(this.spec, request);
			}
			catch (RuntimeException ex) {
				// A reservation for it lapses after its claim, and the request with the
				// line.
			}
			return;
		}
		try {
			// Sent even on an interrupted thread (LockCommands).
			this.commands.withdraw(this.spec, request);
		}
		catch (RuntimeException ex) {
			// A reservation for it lapses after its claim, and the request with the line.
		}
	}

	private WaitQueue.Place place() {
		WaitQueue.Place waiting = this.place;
		if (waiting == null) {
			throw new IllegalStateException("Not in line");
		}
		return waiting;
	}

	private WaitQueue queue() {
		WaitQueue queue = this.line;
		if (queue == null) {
			throw new IllegalStateException("Not in line");
		}
		return queue;
	}

}
