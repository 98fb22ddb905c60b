package io.github.distributedlock.redis.blocking;

import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.FairTurn;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;

/**
 * The waiting part of a fair acquisition. Fair waiters queue in Redis, in arrival order
 * across every process, not in the local FIFO queue: each keeps its place by calling
 * Redis every third of the fair waiter timeout, and tries again early only when a release
 * names it as next (or, if it was first in line, when a plain release or lease end is
 * heard). Returns what it won, like {@link WaitLoop}.
 */
public final class FairWait {

	private final LockAttempts attempts;

	private final LockCommands commands;

	private final WaitQueues queues;

	private final FairTurn turn;

	/**
	 * @param attempts the acquisition, after its first attempt
	 * @param rank our place in the queue after that attempt
	 */
	FairWait(LockAttempts attempts, int rank, LockCommands commands, WaitQueues queues) {
		this.attempts = attempts;
		this.turn = new FairTurn(attempts.acquisition().spec(), attempts.acquisition().owner());
		this.turn.replied(rank);
		this.commands = commands;
		this.queues = queues;
	}

	/**
	 * Wait for our turn.
	 * @return what was won, or {@code null} if the wait time ran out
	 */
	@Nullable Grant run() {
		Acquisition acquisition = this.attempts.acquisition();
		LockSpec spec = acquisition.spec();
		Deadline deadline = acquisition.deadline();
		long heartbeatNanos = this.turn.heartbeatNanos();
		WaitQueue queue = this.queues.join(spec);
		boolean acquired = false;
		// Whether an interrupt threw an attempt's reply away: then the leave is not
		// waited for.
		boolean unanswered = false;
		try {
			queue.awaitSubscribed(Math.min(deadline.remainingNanos(), heartbeatNanos));
			while (true) {
				this.queues.checkOpen(queue, spec.name());
				this.turn.attempting(queue.line());
				long seen = queue.signals();
				LockAttempts.Reply reply;
				try {
					reply = this.attempts.attempt(null, true);
				}
				catch (LockInterruptedException ex) {
					// The attempt may have run and taken the lock.
					unanswered = true;
					this.attempts.undoAttempt();
					throw ex;
				}
				if (reply.grant() != null) {
					acquired = true;
					return reply.grant();
				}
				this.turn.replied(reply.result().rank());
				if (deadline.remainingNanos() <= 0) {
					return null;
				}
				long heartbeatAt = System.nanoTime() + heartbeatNanos;
				while (true) {
					long sleep = Math.min(deadline.sleepNanos(), heartbeatAt - System.nanoTime());
					if (sleep <= 0) {
						break;
					}
					boolean woken = queue.awaitSignal(seen, sleep);
					seen = queue.signals();
					// Not woken: the holder's lease, the heartbeat or the wait
					// time is up, and each calls for an attempt. The lease's
					// bound never reaches 0 (it keeps a margin): waiting for
					// that spun until the heartbeat.
					if (!woken || this.turn.named(queue.line()) || this.turn.firstAfterPlainRelease(queue.line())
							|| queue.isClosed()) {
						break;
					}
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(spec.name(), ex);
		}
		finally {
			this.queues.leave(queue);
			if (!acquired) {
				leaveQueue(spec, unanswered);
			}
		}
	}

	/**
	 * Leave the queue.
	 * @param unanswered whether an attempt's reply was thrown away: the undoing attempt
	 * already waited up to a command timeout for Redis, which may be stalled, so the
	 * leave is not waited for (it goes behind that attempt on a shared connection)
	 */
	private void leaveQueue(LockSpec spec, boolean unanswered) {
		try {
			// Sent even on an interrupted thread (LockCommands): a place left behind
			// would be named next by a release, and the waiters behind it would wait
			// for their heartbeat.
			if (unanswered) {
				this.commands.leaveQueueAsync(spec, this.attempts.acquisition().owner());
			}
			else {
				this.commands.leaveQueue(spec, this.attempts.acquisition().owner());
			}
		}
		catch (RuntimeException ex) {
			// Our place expires with the fair waiter timeout anyway.
		}
	}

}
