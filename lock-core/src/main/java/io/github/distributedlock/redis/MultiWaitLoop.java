package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

/**
 * One all-or-nothing acquisition of several locks that one script can take together (all
 * keys on one node and, on a Cluster, in one slot). Each attempt takes every lock or none;
 * when one is held, the loop waits on that lock's wake-ups, bounded by its holder's lease,
 * and tries them all again.
 * <p>
 * Unlike {@link WaitLoop}, multi-lock waiters don't line up in the local FIFO queue: they
 * wait for whichever lock blocked them last. Their {@linkplain HandOffRequest request} keeps
 * their place in that lock's line in Redis, so a stream of single-lock holders can't starve
 * them: a reservation for it makes that lock free for this waiter's next attempt. Not
 * thread-safe.
 */
final class MultiWaitLoop {

	private static final long LEASE_END_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final List<LockSpec> specs;

	private final String owner;

	private final LockCommands commands;

	private final WaitQueues queues;

	private final long waitNanos;

	private final boolean reentrant;

	private final long startNanos = System.nanoTime();

	private int attempts;

	private @Nullable LockSpec blocked;

	private long blockedTtlMillis = -1;

	private long blockedSeenNanos;

	private final @Nullable HandOffRequest handOff;

	// The locks whose lines the request was filed in, to withdraw it from if the wait fails.
	private final java.util.Set<LockSpec> filed = new java.util.LinkedHashSet<>();

	MultiWaitLoop(List<LockSpec> specs, String owner, long waitNanos, boolean reentrant, boolean lineUp,
			LockCommands commands, WaitQueues queues) {
		this.specs = specs;
		this.owner = owner;
		this.waitNanos = waitNanos;
		this.reentrant = reentrant;
		LockSpec first = specs.get(0);
		this.handOff = (lineUp && waitNanos != 0)
				? HandOffRequest.of((first.strategy() == WaitStrategy.POLLING) ? first.pollNanos() : 0) : null;
		this.commands = commands;
		this.queues = queues;
	}

	/**
	 * Run the acquisition.
	 * @return one hold per lock in the given order, or {@code null} if the wait time ran out
	 */
	@Nullable List<RedisLockHandle> run(RedisLockTemplate template) {
		WaitQueue queue = null;
		boolean acquired = false;
		// Whether Redis failed us: then the request is withdrawn without waiting for the reply.
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
					return held(template, result, sentNanos);
				}
				LockSpec spec = this.specs.get(result.index());
				if (result.selfDeadlock()) {
					throw new LockSelfDeadlockException(spec.name());
				}
				long remaining = remainingNanos();
				if (this.waitNanos == 0 || remaining <= 0) {
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
					queue.awaitSubscribed(Math.min(remaining, ttlNanos()));
					continue;
				}
				long sleep = Math.min(remaining, ttlNanos());
				if (spec.strategy() == WaitStrategy.POLLING) {
					sleep = Math.min(sleep, spec.pollNanos());
				}
				if (this.handOff != null) {
					// Filed again in time, so the line keeps its place.
					sleep = Math.min(sleep, HandOffRequest.REFILE_NANOS);
				}
				queue.awaitSignal(seen, sleep);
				if (queue.isClosed() || this.queues.isClosed()) {
					throw new LockAccessException(spec.name(), "the lock service shut down while waiting", null);
				}
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
	 * Withdraw the request from every line it was filed in, passing on any reservation for it.
	 * After a Redis failure, without waiting for the replies.
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
					// A reservation for it lapses after its claim, and the request with the line.
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
		MultiAcquireResult result = this.commands.acquireAll(this.specs, this.owner, this.reentrant, this.handOff);
		if (!result.acquired()) {
			this.blocked = this.specs.get(result.index());
			if (this.handOff != null && !result.selfDeadlock()) {
				this.filed.add(this.blocked);
			}
			this.blockedTtlMillis = result.holderTtlMillis();
			this.blockedSeenNanos = System.nanoTime();
		}
		return result;
	}

	private List<RedisLockHandle> held(RedisLockTemplate template, MultiAcquireResult result, long sentNanos) {
		Duration elapsed = Duration.ofNanos(System.nanoTime() - this.startNanos);
		boolean waited = this.attempts > 1;
		List<RedisLockHandle> holds = new ArrayList<>(this.specs.size());
		for (int i = 0; i < this.specs.size(); i++) {
			holds.add(template.held(this.specs.get(i), this.owner, result.tokens()[i], sentNanos, waited, elapsed,
					this.attempts));
		}
		return holds;
	}

	private long remainingNanos() {
		if (this.waitNanos < 0) {
			return Long.MAX_VALUE;
		}
		return this.waitNanos - (System.nanoTime() - this.startNanos);
	}

	private long ttlNanos() {
		if (this.blockedTtlMillis < 0) {
			return Long.MAX_VALUE;
		}
		long left = TimeUnit.MILLISECONDS.toNanos(this.blockedTtlMillis) - (System.nanoTime() - this.blockedSeenNanos);
		return Math.max(0, left) + LEASE_END_MARGIN_NANOS;
	}

	/**
	 * Build the exception for a wait that ran out, naming the lock that blocked it.
	 */
	LockTimeoutException timeout() {
		LockSpec spec = (this.blocked != null) ? this.blocked : this.specs.get(0);
		Duration holderLease = null;
		if (this.blockedTtlMillis >= 0) {
			holderLease = Duration.ofNanos(Math.max(0, TimeUnit.MILLISECONDS.toNanos(this.blockedTtlMillis)
					- (System.nanoTime() - this.blockedSeenNanos)));
		}
		return new LockTimeoutException(spec.name(), Duration.ofNanos(System.nanoTime() - this.startNanos),
				holderLease);
	}

}
