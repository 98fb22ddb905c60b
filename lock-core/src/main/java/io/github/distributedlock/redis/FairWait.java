package io.github.distributedlock.redis;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockInterruptedException;
import org.jspecify.annotations.Nullable;

/**
 * The waiting part of a fair acquisition. Fair waiters queue in Redis, in arrival order
 * across every process, not in the local FIFO queue: each keeps its place by calling Redis
 * every third of the fair waiter timeout, and tries again early only when a release names
 * it as next (or, if it was first in line, when a plain release or lease end is heard).
 */
final class FairWait {

	private final WaitLoop loop;

	private int rank;

	FairWait(WaitLoop loop, int rank) {
		this.loop = loop;
		this.rank = rank;
	}

	@Nullable RedisLockHandle run(RedisLockTemplate template) {
		LockSpec spec = this.loop.spec();
		long heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(spec.fairWaiterTimeoutMillis()) / 3;
		WaitQueue queue = this.loop.queues().join(spec);
		boolean acquired = false;
		try {
			queue.awaitSubscribed(Math.min(this.loop.remainingNanos(), heartbeatNanos));
			while (true) {
				this.loop.checkOpen(queue);
				long plain = queue.plainSignals();
				long seen = queue.signals();
				long sentNanos = System.nanoTime();
				AcquireResult result = this.loop.attempt();
				if (result.acquired()) {
					acquired = true;
					return template.held(spec, this.loop.owner(), result.token(), sentNanos, true,
							this.loop.elapsed(), this.loop.attempts());
				}
				this.rank = result.rank();
				if (this.loop.remainingNanos() <= 0) {
					return null;
				}
				long heartbeatAt = System.nanoTime() + heartbeatNanos;
				while (true) {
					long sleep = Math.min(Math.min(this.loop.remainingNanos(), this.loop.holderTtlNanos()),
							heartbeatAt - System.nanoTime());
					if (sleep <= 0) {
						break;
					}
					boolean woken = queue.awaitSignal(seen, sleep);
					seen = queue.signals();
					if (queue.consumeAddressed(this.loop.owner())
							|| (woken && this.rank == 0 && queue.plainSignals() != plain) || queue.isClosed()) {
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
			this.loop.queues().leave(queue);
			if (!acquired) {
				leaveQueue(spec);
			}
		}
	}

	private void leaveQueue(LockSpec spec) {
		try {
			this.loop.commands().leaveQueue(spec, this.loop.owner());
		}
		catch (RuntimeException ex) {
			// Our place expires with the fair waiter timeout anyway.
		}
	}

}
