package io.github.distributedlock.inmemory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One caller's attempt to take some locks: it tries, and while they are taken it sleeps
 * until a release or the end of the lease that blocks it, up to its wait time.
 */
final class Acquisition {

	private final InMemoryLockStore store;

	private final List<Claim> claims;

	private final long waitNanos;

	private final boolean progressAware;

	private int attempts;

	private long waitedNanos;

	Acquisition(InMemoryLockStore store, List<Claim> claims, long waitNanos, boolean progressAware) {
		this.store = store;
		this.claims = claims;
		this.waitNanos = waitNanos;
		this.progressAware = progressAware;
	}

	/**
	 * Take every claim, waiting if needed.
	 * @return the holds, one per claim
	 * @throws LockTimeoutException if the wait time passed first
	 * @throws LockInterruptedException if interrupted while waiting
	 */
	List<Hold> run() {
		long start = System.nanoTime();
		ReentrantLock monitor = this.store.monitor();
		List<@Nullable Object> tickets = new ArrayList<>(this.claims.size());
		this.claims.forEach((claim) -> tickets.add(null));
		monitor.lock();
		try {
			long deadline = start + this.waitNanos;
			long progress = progress();
			while (true) {
				long now = System.nanoTime();
				this.attempts++;
				List<Hold> holds = this.store.tryTake(this.claims, tickets, now);
				if (holds != null) {
					this.waitedNanos = now - start;
					return holds;
				}
				if (this.attempts == 1) {
					lineUp(tickets, now);
				}
				if (this.progressAware && progress() != progress) {
					progress = progress();
					deadline = now + this.waitNanos;
				}
				if (now - deadline >= 0) {
					throw timeout(now - start, now);
				}
				this.store.awaitChange(this.claims, deadline - now, now);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.claims.get(0).name(), ex);
		}
		finally {
			for (int i = 0; i < this.claims.size(); i++) {
				Object ticket = tickets.get(i);
				if (ticket != null) {
					this.store.dequeue(this.claims.get(i), ticket, System.nanoTime());
				}
			}
			monitor.unlock();
		}
	}

	int attempts() {
		return this.attempts;
	}

	Duration waitedFor() {
		return Duration.ofNanos(this.waitedNanos);
	}

	private void lineUp(List<@Nullable Object> tickets, long now) {
		if (this.waitNanos <= 0) {
			return;
		}
		for (int i = 0; i < this.claims.size(); i++) {
			Object ticket = new Object();
			tickets.set(i, ticket);
			this.store.enqueue(this.claims.get(i), ticket, now);
		}
	}

	private long progress() {
		long sum = 0;
		for (Claim claim : this.claims) {
			sum += this.store.fence(claim.name());
		}
		return sum;
	}

	private LockTimeoutException timeout(long waited, long now) {
		Claim blocked = this.claims.get(0);
		for (Claim claim : this.claims) {
			if (this.store.holderRemaining(claim.name(), claim.kind(), now) > 0) {
				blocked = claim;
				break;
			}
		}
		long remaining = this.store.holderRemaining(blocked.name(), blocked.kind(), now);
		return new LockTimeoutException(blocked.name(), Duration.ofNanos(waited),
				(remaining > 0) ? Duration.ofNanos(remaining) : null);
	}

}
