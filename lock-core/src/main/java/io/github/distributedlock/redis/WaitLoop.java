package io.github.distributedlock.redis;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition: try the lock, and if it is taken, wait for a wake-up and try again
 * until the lock is ours or the wait time is over.
 * <p>
 * The steps:
 * <ol>
 * <li>Try once. Most locks are free, and this is the only command sent.</li>
 * <li>Join the lock's local {@link WaitQueue} and wait for our turn: local waiters line
 * up in FIFO order, and only the first talks to Redis.</li>
 * <li>Make sure the release channel is subscribed before trying again, so no release is
 * missed.</li>
 * <li>Read the signal count, try, and if the lock is still taken wait for a signal for at
 * most the holder's remaining lease (a crashed holder is noticed when its lease ends,
 * without polling) and at most our remaining wait time.</li>
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
 * What to do at each step is the {@link Acquisition}'s decision; this loop sends the
 * attempts, parks the thread and keeps its place in the local line. It returns what it
 * won; it registers nothing. Not thread-safe: each acquisition has its own loop.
 */
final class WaitLoop {

	private final LockSpec spec;

	private final Acquisition acquisition;

	private final LockAttempts attempts;

	private final Deadline deadline;

	private final LockCommands commands;

	private final WaitQueues queues;

	private final boolean lineUp;

	// Whether another local waiter had the turn first: then the lock changed hands
	// meanwhile.
	private boolean waitedForTurn;

	// The waiter's local line once it joined one, whose sightings of the holder its
	// timeout reports if it made no attempt of its own.
	private @Nullable WaitQueue line;

	/**
	 * @param holds the holds of the template, which say whether the owner holds the lock
	 * through a local handle already
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 */
	WaitLoop(LockSpec spec, String owner, HoldRegistry holds, boolean handOff, LockCommands commands,
			WaitQueues queues) {
		this.spec = spec;
		this.acquisition = new Acquisition(spec, owner, holds.holdsLocally(owner, spec.lockKey()), NanoClock.SYSTEM);
		this.attempts = new LockAttempts(this.acquisition, holds, commands);
		this.deadline = this.acquisition.deadline();
		this.commands = commands;
		this.queues = queues;
		this.lineUp = this.acquisition.linesUp(handOff);
	}

	/**
	 * Run the acquisition.
	 * @return what was won, or {@code null} if the wait time ran out (see
	 * {@link #timeout()})
	 */
	@Nullable Grant run() {
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

	private @Nullable Grant attemptAndWait() {
		WaitQueue hot = this.queues.peek(this.spec.queueId());
		if (this.lineUp && !this.acquisition.holdsIt() && hot != null && hot.subscribed().isDone()) {
			// A lock waited for in this JVM a moment ago is likely taken: line up at
			// once, so that the first attempt already files the hand-off request.
			return waitInLine(hot, -1);
		}
		// A release is heard only once the subscription is complete: if it was not before
		// this attempt, the waiter tries again once it is (seen = -1) rather than sleep
		// on
		// a count that a message sent in between never reached.
		long seen = (hot != null && hot.subscribed().isDone()) ? hot.signals() : -1;
		LockAttempts.Reply reply = this.attempts.attempt(null, false);
		if (reply.grant() != null) {
			return reply.grant();
		}
		if (reply.outcome() == AttemptOutcome.OVER) {
			return null;
		}
		if (this.spec.kind().queuesInRedis()) {
			return new FairWait(this.attempts, reply.result().rank(), this.commands, this.queues).run();
		}
		return waitInLine(hot, seen);
	}

	/**
	 * Build the exception for a wait that ran out.
	 */
	LockTimeoutException timeout() {
		WaitQueue queue = this.line;
		return this.acquisition.timeout((queue != null) ? queue.line().holder() : null);
	}

	private @Nullable Grant waitInLine(@Nullable WaitQueue hot, long seen) {
		WaitQueue queue = this.queues.join(this.spec);
		this.line = queue;
		queue.line().holderSeen(this.deadline.holder());
		this.queues.waiting(1);
		try {
			if (!awaitTurn(queue)) {
				return null;
			}
			if (this.lineUp) {
				queue.line().expect(this.acquisition.fileRequest());
			}
			Grant grant = null;
			boolean failed = true;
			try {
				grant = waitAsHead(queue, (queue == hot) ? seen : -1);
				failed = false;
				return grant;
			}
			catch (InterruptedException | LockInterruptedException | LockSelfDeadlockException ex) {
				failed = false;
				throw ex;
			}
			finally {
				endHandOff(queue, grant != null, failed && !queue.isClosed());
				queue.turn().unlock();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.spec.name(), ex);
		}
		finally {
			this.queues.waiting(-1);
			this.queues.leave(queue);
		}
	}

	private @Nullable Grant waitAsHead(WaitQueue queue, long firstSeen) throws InterruptedException {
		// A hand-off request must be filed before sleeping.
		boolean tryNow = firstSeen < 0 || (this.acquisition.request() != null && !this.acquisition.filed());
		if (tryNow || !queue.subscribed().isDone()) {
			queue.awaitSubscribed(this.deadline.sleepNanos());
			tryNow = true;
		}
		else {
			this.acquisition.seen(firstSeen);
		}
		while (true) {
			this.queues.checkOpen(queue, this.spec.name());
			if (tryNow) {
				LockAttempts.Reply reply = this.attempts.attempt(queue.line(), this.waitedForTurn);
				if (reply.grant() != null) {
					queue.line().markProgress(System.nanoTime());
					return reply.grant();
				}
				queue.line().holderSeen(this.deadline.holder());
				if (this.acquisition.lastHandOffNanos() != 0) {
					queue.line().markProgress(this.acquisition.lastHandOffNanos());
				}
			}
			Acquisition.Step step = this.acquisition.whileHead(queue.line());
			if (step == Acquisition.Step.GIVE_UP) {
				return null;
			}
			if (step == Acquisition.Step.TRY) {
				tryNow = true;
				continue;
			}
			long sleep = this.acquisition.sleepNanos();
			boolean woken = this.lineUp ? queue.awaitSignalAsHead(this.acquisition.seenSignals(), sleep)
					: queue.awaitSignal(this.acquisition.seenSignals(), sleep);
			// A timer always leads to an attempt; a message, if the acquisition says so,
			// even if the wait time ran out meanwhile: it was called before.
			tryNow = !woken || this.acquisition.calledToTry(queue.line());
		}
	}

	/**
	 * Stop listening for reservations, and withdraw the request if the wait ended without
	 * the lock (which passes on a reservation for it, and never touches a hold). After a
	 * Redis failure the request is withdrawn without waiting for the reply, so that a
	 * failing Redis is not waited for twice (and a request left behind would cost the
	 * others a claim).
	 */
	private void endHandOff(WaitQueue queue, boolean acquired, boolean failed) {
		Acquisition.Ending ending = this.acquisition.end(acquired);
		HandOffRequest request = ending.withdraw();
		if (ending.forget() != null) {
			queue.line().forget(ending.forget());
		}
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
		boolean interrupted = Thread.interrupted();
		try {
			this.commands.withdraw(this.spec, request);
		}
		catch (RuntimeException ex) {
			// A reservation for it lapses after its claim, and the request with the line.
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Wait until this thread is first in the local queue. A progress-aware wait restarts
	 * its clock when the lock changed hands meanwhile.
	 */
	private boolean awaitTurn(WaitQueue queue) throws InterruptedException {
		if (queue.turn().tryLock(0, TimeUnit.NANOSECONDS)) {
			return true;
		}
		this.waitedForTurn = true;
		while (true) {
			// tryLock with a timeout honours the FIFO order; plain tryLock() would barge.
			if (queue.turn().tryLock(Math.max(0, this.deadline.remainingNanos()), TimeUnit.NANOSECONDS)) {
				return true;
			}
			this.queues.checkOpen(queue, this.spec.name());
			if (!this.acquisition.restartOnProgress(queue.line().lastProgressNanos())) {
				return false;
			}
		}
	}

}
