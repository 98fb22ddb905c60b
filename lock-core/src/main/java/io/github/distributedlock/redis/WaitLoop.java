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
		WaitQueue queue = this.queues.join(this.spec);
		template.waiting(1);
		try {
			if (!awaitTurn(queue)) {
				return null;
			}
			try {
				return waitAsFirst(template, queue, (queue == hot) ? seen : -1);
			}
			finally {
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
		long seen = firstSeen;
		if (seen < 0 || !queue.subscribed().isDone()) {
			queue.awaitSubscribed(Math.min(remainingNanos(), holderTtlNanos()));
			seen = -1;
		}
		while (true) {
			checkOpen(queue);
			if (seen < 0) {
				seen = queue.signals();
				long sentNanos = System.nanoTime();
				AcquireResult result = attempt();
				if (result.acquired()) {
					queue.markProgress(System.nanoTime());
					return template.held(this.spec, this.owner, result.token(), sentNanos, true, elapsed(),
							this.attempts);
				}
				if (this.lastHandoffNanos != 0) {
					queue.markProgress(this.lastHandoffNanos);
				}
			}
			long remaining = remainingNanos();
			if (remaining <= 0) {
				return null;
			}
			long sleep = Math.min(remaining, holderTtlNanos());
			if (this.spec.strategy() == WaitStrategy.POLLING) {
				sleep = Math.min(sleep, this.spec.pollNanos());
			}
			queue.awaitSignal(seen, sleep);
			seen = -1;
		}
	}

	/**
	 * Wait until this thread is first in the local queue. A progress-aware wait restarts
	 * its clock when the lock changed hands meanwhile.
	 */
	private boolean awaitTurn(WaitQueue queue) throws InterruptedException {
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
		AcquireResult result = this.commands.acquire(this.spec, this.owner, remainingMillis, mayHaveIntent,
				this.holdsIt);
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
