package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition: try the lock, and if it is taken, wait for a wake-up and try again until
 * the lock is ours or the wait time is over.
 * <p>
 * The steps:
 * <ol>
 * <li>Try once. Most locks are free, and this is the only command sent.</li>
 * <li>Join the lock's local {@link WaitQueue} and wait for our turn: local waiters line up
 * in FIFO order, and only the first talks to Redis.</li>
 * <li>Make sure the release channel is subscribed before trying again, so no release is
 * missed.</li>
 * <li>Read the signal count, try, and if the lock is still taken wait for a signal for at
 * most the holder's remaining lease (a crashed holder is noticed when its lease ends,
 * without polling) and at most our remaining wait time.</li>
 * </ol>
 * The attempts of step 4 also file a {@linkplain HandOffRequest request}, which keeps this
 * waiter's place in the lock's line across processes: the last holder's release reserves the
 * lock for the oldest request and tells its waiter, whose next attempt takes it. The message
 * is only a hint: the lock is ours when, and only when, an attempt's reply says so, and the
 * lease is counted from before that attempt was sent. The request is filed again at least
 * every {@link HandOffRequest#REFILE_NANOS} and withdrawn when the wait ends without the lock
 * (which passes a reservation for it on).
 * <p>
 * Not thread-safe: each acquisition has its own loop.
 */
final class WaitLoop {

	private static final long LEASE_END_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final LockSpec spec;

	private final String owner;

	private final LockCommands commands;

	private final WaitQueues queues;

	private final long startNanos = System.nanoTime();

	private long deadlineNanos;

	private int attempts;

	private long lastHolderToken = -1;

	private long lastHolderTtlMillis = -1;

	private long lastSeenNanos;

	private long lastHandoffNanos;

	private boolean holdsIt;

	private @Nullable HandOffRequest handOff;

	private long lastSentNanos;

	private boolean filed;

	// Whether another local waiter had the turn first: then the lock changed hands meanwhile.
	private boolean waitedForTurn;

	WaitLoop(LockSpec spec, String owner, LockCommands commands, WaitQueues queues) {
		this.spec = spec;
		this.owner = owner;
		this.commands = commands;
		this.queues = queues;
		this.deadlineNanos = this.startNanos + spec.waitNanos();
	}

	/**
	 * Run the acquisition.
	 * @return the hold, or {@code null} if the wait time ran out
	 */
	@Nullable RedisLockHandle run(RedisLockTemplate template) {
		this.holdsIt = template.holdsLocally(this.owner, this.spec.lockKey());
		WaitQueue hot = this.queues.peek(this.spec.queueId());
		boolean handsOver = template.handsOver(this.spec) && this.spec.waitNanos() != 0;
		if (handsOver && !this.holdsIt && hot != null && hot.subscribed().isDone()) {
			// A lock waited for in this JVM a moment ago is likely taken: line up at once, so
			// that the first attempt already files the hand-off request.
			return waitInLine(template, hot, -1, true);
		}
		long seen = (hot != null) ? hot.signals() : 0;
		long sentNanos = System.nanoTime();
		AcquireResult result = attempt();
		if (result.acquired()) {
			return template.held(this.spec, this.owner, result.token(), sentNanos, false, elapsed(), this.attempts);
		}
		if (result.selfDeadlock()) {
			throw new LockSelfDeadlockException(this.spec.name());
		}
		if (this.spec.waitNanos() == 0) {
			return null;
		}
		if (this.spec.fair()) {
			return new FairWait(this, result.rank()).run(template);
		}
		return waitInLine(template, hot, seen, handsOver);
	}

	private @Nullable RedisLockHandle waitInLine(RedisLockTemplate template, @Nullable WaitQueue hot, long seen,
			boolean handsOver) {
		WaitQueue queue = this.queues.join(this.spec);
		template.waiting(1);
		try {
			if (!awaitTurn(queue)) {
				return null;
			}
			if (handsOver) {
				this.handOff = HandOffRequest.of(
						(this.spec.strategy() == WaitStrategy.POLLING) ? this.spec.pollNanos() : 0);
				queue.expect(this.handOff);
			}
			RedisLockHandle handle = null;
			boolean failed = true;
			try {
				handle = waitAsFirst(template, queue, (queue == hot) ? seen : -1);
				failed = false;
				return handle;
			}
			catch (InterruptedException | LockInterruptedException | LockSelfDeadlockException ex) {
				failed = false;
				throw ex;
			}
			finally {
				endHandOff(queue, handle != null, failed && !queue.isClosed());
				queue.turn().unlock();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.spec.name(), ex);
		}
		finally {
			template.waiting(-1);
			this.queues.leave(queue);
		}
	}

	private @Nullable RedisLockHandle waitAsFirst(RedisLockTemplate template, WaitQueue queue, long firstSeen)
			throws InterruptedException {
		// A hand-off request must be filed before sleeping.
		long seen = (this.handOff != null && !this.filed) ? -1 : firstSeen;
		if (seen < 0 || !queue.subscribed().isDone()) {
			queue.awaitSubscribed(Math.min(remainingNanos(), holderTtlNanos()));
			seen = -1;
		}
		// Unknown until the first attempt here: a wake-up before it always leads to an attempt.
		long retries = Long.MIN_VALUE;
		while (true) {
			checkOpen(queue);
			if (seen < 0) {
				// In this order: a call to try again that lands in between is then seen twice
				// (one attempt too many), never missed.
				retries = queue.retrySignals();
				seen = queue.signals();
				long sentNanos = System.nanoTime();
				AcquireResult result = attempt();
				if (result.selfDeadlock()) {
					throw new LockSelfDeadlockException(this.spec.name());
				}
				if (result.acquired()) {
					queue.markProgress(System.nanoTime());
					return template.held(this.spec, this.owner, result.token(), sentNanos,
							this.attempts > 1 || this.waitedForTurn,
							elapsed(), this.attempts);
				}
				if (this.lastHandoffNanos != 0) {
					queue.markProgress(this.lastHandoffNanos);
				}
			}
			if (this.spec.progressAware() && queue.lastProgressNanos() != 0
					&& queue.lastProgressNanos() + this.spec.waitNanos() - this.deadlineNanos > 0) {
				// The lock changed hands (a hand-off heard while asleep), so the wait time restarts.
				this.deadlineNanos = queue.lastProgressNanos() + this.spec.waitNanos();
			}
			long remaining = remainingNanos();
			if (remaining <= 0) {
				return null;
			}
			long sleep = Math.min(remaining, holderTtlNanos());
			if (this.spec.strategy() == WaitStrategy.POLLING) {
				sleep = Math.min(sleep, this.spec.pollNanos());
			}
			if (this.handOff != null) {
				sleep = Math.min(sleep, this.lastSentNanos + HandOffRequest.REFILE_NANOS - System.nanoTime());
			}
			boolean woken = (this.handOff != null) ? queue.awaitSignalAsHead(seen, sleep)
					: queue.awaitSignal(seen, sleep);
			if (woken && queue.retrySignals() == retries) {
				// Only reservations for others were heard: the lock is taken again, for at least as
				// long as the claim. Try again if that claim ends.
				reservedElsewhere(queue);
				seen = queue.signals();
				// A reservation for us (a call to try again) may have landed since the check above:
				// the count just read includes it, so only the retry count can still tell.
				if (queue.retrySignals() == retries) {
					continue;
				}
			}
			seen = -1;
		}
	}

	private void reservedElsewhere(WaitQueue queue) {
		WaitQueue.Reservation last = queue.lastReservation();
		if (last == null) {
			return;
		}
		this.lastHandoffNanos = last.receivedNanos();
		if (this.spec.progressAware()) {
			this.deadlineNanos = last.receivedNanos() + this.spec.waitNanos();
		}
		// A message is only a hint: it may make us try sooner (when the claim lapses), never later
		// than the lease Redis last told us of.
		if (this.lastHolderTtlMillis < 0 || last.endNanos()
				- (this.lastSeenNanos + TimeUnit.MILLISECONDS.toNanos(this.lastHolderTtlMillis)) < 0) {
			this.lastHolderTtlMillis = last.claimMillis();
			this.lastSeenNanos = last.receivedNanos();
		}
	}

	/**
	 * Stop listening for reservations, and withdraw the request if the wait ended without the
	 * lock (which passes on a reservation for it, and never touches a hold). After a Redis
	 * failure the request is withdrawn without waiting for the reply, so that a failing Redis
	 * is not waited for twice (and a request left behind would cost the others a claim).
	 */
	private void endHandOff(WaitQueue queue, boolean acquired, boolean failed) {
		HandOffRequest request = this.handOff;
		this.handOff = null;
		if (request == null) {
			return;
		}
		queue.forget(request);
		if (acquired || !this.filed) {
			return;
		}
		if (failed) {
			try {
				this.commands.withdrawAsync(this.spec, request);
			}
			catch (RuntimeException ex) {
				// A reservation for it lapses after its claim, and the request with the line.
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
			if (queue.turn().tryLock(Math.max(0, remainingNanos()), TimeUnit.NANOSECONDS)) {
				return true;
			}
			checkOpen(queue);
			if (!this.spec.progressAware()) {
				return false;
			}
			long progress = queue.lastProgressNanos();
			if (progress == 0 || progress + this.spec.waitNanos() - this.deadlineNanos <= 0) {
				return false;
			}
			this.deadlineNanos = progress + this.spec.waitNanos();
		}
	}

	LockSpec spec() {
		return this.spec;
	}

	String owner() {
		return this.owner;
	}

	WaitQueues queues() {
		return this.queues;
	}

	LockCommands commands() {
		return this.commands;
	}

	int attempts() {
		return this.attempts;
	}

	AcquireResult attempt() {
		this.attempts++;
		long remaining = remainingNanos();
		long remainingMillis = (remaining == Long.MAX_VALUE) ? -1 : TimeUnit.NANOSECONDS.toMillis(Math.max(0, remaining));
		// A failed attempt with token 0 was held back by readers and may have set a writer intent.
		boolean mayHaveIntent = this.attempts > 1 && this.lastHolderToken == 0;
		this.lastSentNanos = System.nanoTime();
		this.filed |= this.handOff != null;
		AcquireResult result = this.commands.acquire(this.spec, this.owner, remainingMillis, mayHaveIntent,
				this.holdsIt, this.handOff);
		if (!result.acquired()) {
			long now = System.nanoTime();
			if (this.lastHolderToken != -1 && this.lastHolderToken != result.token()) {
				this.lastHandoffNanos = now;
				if (this.spec.progressAware()) {
					this.deadlineNanos = now + this.spec.waitNanos();
				}
			}
			this.lastHolderToken = result.token();
			this.lastHolderTtlMillis = result.holderTtlMillis();
			this.lastSeenNanos = now;
		}
		return result;
	}

	void checkOpen(WaitQueue queue) {
		if (queue.isClosed() || this.queues.isClosed()) {
			throw new LockAccessException(this.spec.name(), "the lock service shut down while waiting", null);
		}
	}

	long remainingNanos() {
		if (this.spec.waitsIndefinitely()) {
			return Long.MAX_VALUE;
		}
		return this.deadlineNanos - System.nanoTime();
	}

	/**
	 * Return how long until the holder's lease ends, as last reported, plus a little so the
	 * retry finds it expired.
	 */
	long holderTtlNanos() {
		if (this.lastHolderTtlMillis < 0) {
			return Long.MAX_VALUE;
		}
		long left = TimeUnit.MILLISECONDS.toNanos(this.lastHolderTtlMillis) - (System.nanoTime() - this.lastSeenNanos);
		return Math.max(0, left) + LEASE_END_MARGIN_NANOS;
	}

	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.startNanos);
	}

	/**
	 * Build the exception for a wait that ran out.
	 */
	LockTimeoutException timeout() {
		Duration holderLease = null;
		if (this.lastHolderTtlMillis >= 0) {
			long left = TimeUnit.MILLISECONDS.toNanos(this.lastHolderTtlMillis)
					- (System.nanoTime() - this.lastSeenNanos);
			holderLease = Duration.ofNanos(Math.max(0, left));
		}
		return new LockTimeoutException(this.spec.name(), elapsed(), holderLease);
	}

}
