package io.github.distributedlock.redis.blocking;

import java.util.List;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
import io.github.distributedlock.redis.core.MultiAcquisition;
import org.jspecify.annotations.Nullable;

/**
 * The blocking driver of one {@link MultiAcquisition}: several locks that one script can
 * take together (all keys on one node and, on a Cluster, in one slot). Each attempt takes
 * every lock or none; when one is held, the loop waits on that lock's wake-ups, bounded
 * by its holder's lease, and tries them all again.
 * <p>
 * Unlike {@link WaitLoop}, multi-lock waiters don't line up in the local FIFO queue: they
 * wait for whichever lock blocked them last. Their {@linkplain HandOffRequest request}
 * keeps their place in that lock's line in Redis, so a stream of single-lock holders
 * can't starve them: a reservation for it makes that lock free for this waiter's next
 * attempt. Returns what it won, like {@link WaitLoop}. Not thread-safe.
 */
public final class MultiWaitLoop {

	private final MultiAcquisition acquisition;

	private final LockCommands commands;

	private final WaitQueues queues;

	MultiWaitLoop(MultiAcquisition acquisition, LockCommands commands, WaitQueues queues) {
		this.acquisition = acquisition;
		this.commands = commands;
		this.queues = queues;
	}

	/**
	 * Run the acquisition.
	 * @return what was won, one grant per lock in the given order, or {@code null} if the
	 * wait time ran out (see {@link #timeout()})
	 */
	@Nullable List<Grant> run() {
		LockCommands.refuseIfInterrupted(this.acquisition.specs().get(0).name());
		WaitQueue queue = null;
		boolean acquired = false;
		// Whether Redis failed us, or an interrupt threw an attempt's reply away: then
		// the request is withdrawn without waiting for the replies.
		boolean failed = false;
		try {
			long seen = 0;
			while (true) {
				if (queue != null) {
					seen = queue.signals();
				}
				long sentNanos = this.acquisition.next();
				MultiAcquireResult result;
				try {
					result = attempt(false);
				}
				catch (LockInterruptedException ex) {
					this.acquisition.unanswered();
					undoAttempt();
					// The undoing attempt waited up to a command timeout for Redis,
					// which may be stalled: a withdrawal from every lock's line, each
					// waited for, could take as many more.
					failed = true;
					throw ex;
				}
				catch (RuntimeException ex) {
					this.acquisition.unanswered();
					throw ex;
				}
				MultiAcquisition.Outcome outcome = this.acquisition.replied(sentNanos, result);
				if (outcome instanceof MultiAcquisition.Granted granted) {
					if (!granted.late()) {
						acquired = true;
						return granted.grants();
					}
					// Granted too late to use: again at once, with the same hold id,
					// which acquire-all.lua finds and gives a lease that covers this
					// attempt; or, once the wait is over, released.
					if (this.acquisition.retriesLateGrant()) {
						continue;
					}
					releaseQuietly(granted.grants());
					return null;
				}
				if (outcome instanceof MultiAcquisition.Failed error) {
					throw error.error();
				}
				if (!(outcome instanceof MultiAcquisition.Blocked blocked)) {
					return null;
				}
				LockSpec spec = blocked.spec();
				if (queue == null || !queue.id().equals(spec.queueId())) {
					if (queue != null) {
						leave(queue);
					}
					queue = this.queues.join(spec);
					HandOffRequest request = this.acquisition.request();
					if (request != null) {
						queue.line().expect(request);
					}
					// Subscribed before the next attempt, so its release can't be missed.
					queue.awaitSubscribed(this.acquisition.subscribeNanos());
					continue;
				}
				queue.awaitSignal(seen, this.acquisition.sleepNanos());
				this.queues.checkOpen(queue, spec.name());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.acquisition.specs().get(0).name(), ex);
		}
		catch (LockAccessException ex) {
			failed = true;
			throw ex;
		}
		finally {
			if (queue != null) {
				leave(queue);
			}
			if (!acquired) {
				withdraw(failed);
			}
		}
	}

	private MultiAcquireResult attempt(boolean undoing) {
		return this.commands.acquireAll(this.acquisition.specs(), this.acquisition.owner(), this.acquisition.hold(),
				this.acquisition.reentrant(), this.acquisition.request(), undoing);
	}

	/**
	 * Undo an attempt whose reply an interrupt threw away: it may have run and taken the
	 * locks, which nobody would release before their leases end. One more attempt with
	 * the same hold id finds them, and what it finds, or takes now, is released.
	 */
	private void undoAttempt() {
		try {
			long sentNanos = this.acquisition.next();
			if (this.acquisition.replied(sentNanos, attempt(true)) instanceof MultiAcquisition.Granted granted) {
				releaseQuietly(granted.grants());
			}
		}
		catch (RuntimeException ex) {
			// The holds, if the attempt took them, end with their leases.
		}
	}

	private void releaseQuietly(List<Grant> grants) {
		for (Grant grant : grants) {
			try {
				this.commands.release(grant);
			}
			catch (RuntimeException ex) {
				// The hold ends with its lease.
			}
		}
	}

	private void leave(WaitQueue queue) {
		HandOffRequest request = this.acquisition.request();
		if (request != null) {
			queue.line().forget(request);
		}
		this.queues.leave(queue);
	}

	/**
	 * Withdraw the request from every line it was filed in, passing on any reservation
	 * for it. After a Redis failure or an interrupted attempt, without waiting for the
	 * replies.
	 */
	private void withdraw(boolean failed) {
		HandOffRequest request = this.acquisition.request();
		if (request == null) {
			return;
		}
		// Sent even on an interrupted thread (LockCommands).
		for (LockSpec spec : this.acquisition.filed()) {
			try {
				if (failed) {
					this.commands.withdrawAsync(spec, request);
				}
				else {
					this.commands.withdraw(spec, request);
				}
			}
			catch (RuntimeException ex) {
				// A reservation for it lapses after its claim, and the request with the
				// line.
			}
		}
	}

	/**
	 * Build the exception for a wait that ran out, naming the lock that blocked it.
	 */
	LockTimeoutException timeout() {
		return this.acquisition.timeout();
	}

}
