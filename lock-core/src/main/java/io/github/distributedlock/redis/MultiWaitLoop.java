package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

/**
 * One all-or-nothing acquisition of several locks that one script can take together (all
 * keys on one node and, on a Cluster, in one slot). Each attempt takes every lock or
 * none; when one is held, the loop waits on that lock's wake-ups, bounded by its holder's
 * lease, and tries them all again.
 * <p>
 * Unlike {@link WaitLoop}, multi-lock waiters don't line up in the local FIFO queue: they
 * wait for whichever lock blocked them last. Their {@linkplain HandOffRequest request}
 * keeps their place in that lock's line in Redis, so a stream of single-lock holders
 * can't starve them: a reservation for it makes that lock free for this waiter's next
 * attempt. Returns what it won, like {@link WaitLoop}. Not thread-safe.
 */
final class MultiWaitLoop {

	private final List<LockSpec> specs;

	private final String owner;

	// The hold this acquisition takes in every lock, the same in every attempt (see
	// LockAttempts).
	private final String hold = UniqueIds.next();

	private final LockCommands commands;

	private final WaitQueues queues;

	private final boolean reentrant;

	private final Deadline deadline;

	private int attempts;

	private @Nullable LockSpec blocked;

	private final @Nullable HandOffRequest handOff;

	// The locks whose lines the request was filed in, to withdraw it from if the wait
	// fails.
	private final Set<LockSpec> filed = new LinkedHashSet<>();

	/**
	 * @param specs the locks, in the global order
	 * @param handOff whether waiters line up for reservations
	 */
	MultiWaitLoop(List<LockSpec> specs, String owner, long waitNanos, boolean reentrant, boolean handOff,
			LockCommands commands, WaitQueues queues) {
		this.specs = specs;
		this.owner = owner;
		this.deadline = Deadline.start(waitNanos);
		this.reentrant = reentrant;
		LockSpec first = specs.get(0);
		this.handOff = (handOff && first.kind().handsOver() && !this.deadline.isTryOnce())
				? HandOffRequest.of((first.strategy() == WaitStrategy.POLLING) ? first.pollNanos() : 0) : null;
		this.commands = commands;
		this.queues = queues;
	}

	/**
	 * Run the acquisition.
	 * @return what was won, one grant per lock in the given order, or {@code null} if the
	 * wait time ran out (see {@link #timeout()})
	 */
	@Nullable List<Grant> run() {
		WaitQueue queue = null;
		boolean acquired = false;
		// Whether Redis failed us: then the request is withdrawn without waiting for the
		// reply.
		boolean failed = false;
		try {
			long seen = 0;
			while (true) {
				if (queue != null) {
					seen = queue.signals();
				}
				long sentNanos = System.nanoTime();
				MultiAcquireResult result = attempt();
				if (result.acquired()) {
					acquired = true;
					return grants(result, sentNanos);
				}
				LockSpec spec = this.specs.get(result.index());
				if (result.selfDeadlock()) {
					throw new LockSelfDeadlockException(spec.name());
				}
				long remaining = this.deadline.remainingNanos();
				if (this.deadline.isTryOnce() || remaining <= 0) {
					return null;
				}
				if (queue == null || !queue.id().equals(spec.queueId())) {
					if (queue != null) {
						leave(queue);
					}
					queue = this.queues.join(spec);
					if (this.handOff != null) {
						queue.expect(this.handOff);
					}
					// Subscribed before the next attempt, so its release can't be missed.
					queue.awaitSubscribed(this.deadline.sleepNanos());
					continue;
				}
				long sleep = this.deadline.sleepNanos();
				if (spec.strategy() == WaitStrategy.POLLING) {
					sleep = Math.min(sleep, spec.pollNanos());
				}
				if (this.handOff != null) {
					// Filed again in time, so the line keeps its place.
					sleep = Math.min(sleep, HandOffRequest.REFILE_NANOS);
				}
				queue.awaitSignal(seen, sleep);
				this.queues.checkOpen(queue, spec.name());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.specs.get(0).name(), ex);
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

	private void leave(WaitQueue queue) {
		if (this.handOff != null) {
			queue.forget(this.handOff);
		}
		this.queues.leave(queue);
	}

	/**
	 * Withdraw the request from every line it was filed in, passing on any reservation
	 * for it. After a Redis failure, without waiting for the replies.
	 */
	private void withdraw(boolean failed) {
		if (this.handOff == null) {
			return;
		}
		boolean interrupted = Thread.interrupted();
		try {
			for (LockSpec spec : this.filed) {
				try {
					if (failed) {
						this.commands.withdrawAsync(spec, this.handOff);
					}
					else {
						this.commands.withdraw(spec, this.handOff);
					}
				}
				catch (RuntimeException ex) {
					// A reservation for it lapses after its claim, and the request with
					// the line.
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private MultiAcquireResult attempt() {
		this.attempts++;
		MultiAcquireResult result = this.commands.acquireAll(this.specs, this.owner, this.hold, this.reentrant,
				this.handOff);
		if (!result.acquired()) {
			this.blocked = this.specs.get(result.index());
			if (this.handOff != null && !result.selfDeadlock()) {
				this.filed.add(this.blocked);
			}
			this.deadline.holderSeen(result.holderTtlMillis(), System.nanoTime());
		}
		return result;
	}

	private List<Grant> grants(MultiAcquireResult result, long sentNanos) {
		Duration elapsed = this.deadline.elapsed();
		boolean waited = this.attempts > 1;
		List<Grant> grants = new ArrayList<>(this.specs.size());
		for (int i = 0; i < this.specs.size(); i++) {
			grants.add(new Grant(this.specs.get(i), this.owner, result.tokens()[i], this.hold, sentNanos, waited,
					elapsed, this.attempts));
		}
		return grants;
	}

	/**
	 * Build the exception for a wait that ran out, naming the lock that blocked it.
	 */
	LockTimeoutException timeout() {
		LockSpec spec = (this.blocked != null) ? this.blocked : this.specs.get(0);
		return this.deadline.timeout(spec.name());
	}

}
