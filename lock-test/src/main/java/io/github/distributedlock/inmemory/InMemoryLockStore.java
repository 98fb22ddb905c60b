package io.github.distributedlock.inmemory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockSelfDeadlockException;
import org.jspecify.annotations.Nullable;

/**
 * The locks of one simulated Redis: every {@link InMemoryLockTemplate} built on the same
 * store sees the same locks, as processes sharing one Redis do.
 * <p>
 * One monitor guards all state; waiters sleep on its condition until a release, or until
 * the next lease they are blocked by runs out, never in a busy loop. Fencing tokens are
 * counted per lock name and never reset.
 */
final class InMemoryLockStore {

	private final ReentrantLock monitor = new ReentrantLock();

	private final Condition changed = this.monitor.newCondition();

	private final Map<LockName, LockEntry> entries = new HashMap<>();

	private final Map<LockName, Long> fences = new HashMap<>();

	/**
	 * Take every claim, or none: the holds taken, or {@code null} if one is taken by
	 * someone else. Called with the monitor held.
	 * @throws LockSelfDeadlockException if a claim could only be granted by waiting for
	 * its own owner
	 */
	@Nullable List<Hold> tryTake(List<Claim> claims, List<@Nullable Object> tickets, long now) {
		List<Hold> taken = new ArrayList<>(claims.size());
		for (int i = 0; i < claims.size(); i++) {
			Claim claim = claims.get(i);
			Hold hold;
			try {
				hold = tryTake(claim, tickets.get(i), now);
			}
			catch (RuntimeException ex) {
				undo(claims, taken, now);
				throw ex;
			}
			if (hold == null) {
				undo(claims, taken, now);
				return null;
			}
			taken.add(hold);
		}
		return taken;
	}

	private void undo(List<Claim> claims, List<Hold> taken, long now) {
		for (int i = 0; i < taken.size(); i++) {
			Claim claim = claims.get(i);
			release(claim.kind(), claim.name(), taken.get(i).owner, taken.get(i).token, now, false);
		}
	}

	private @Nullable Hold tryTake(Claim claim, @Nullable Object ticket, long now) {
		LockEntry entry = entry(claim.name(), now);
		return switch (claim.kind()) {
			case EXCLUSIVE -> tryWrite(entry, claim, ticket, now);
			case READ -> tryRead(entry, claim, now);
			case PERMIT -> tryPermit(entry, claim, now);
		};
	}

	private @Nullable Hold tryWrite(LockEntry entry, Claim claim, @Nullable Object ticket, long now) {
		Hold writer = entry.writer;
		if (writer != null && writer.owner.equals(claim.owner())) {
			return reenter(writer, claim, now);
		}
		if (entry.reader(claim.owner()) != null) {
			throw new LockSelfDeadlockException(claim.name());
		}
		boolean queued = claim.fair() && !entry.fairQueue.isEmpty() && entry.fairQueue.peek() != ticket;
		if (writer != null || !entry.readers.isEmpty() || queued) {
			return null;
		}
		entry.writer = newHold(claim, now);
		return entry.writer;
	}

	private @Nullable Hold tryRead(LockEntry entry, Claim claim, long now) {
		Hold own = entry.reader(claim.owner());
		if (own != null) {
			return reenter(own, claim, now);
		}
		Hold writer = entry.writer;
		boolean ownWriter = writer != null && writer.owner.equals(claim.owner());
		if (!ownWriter && (writer != null || entry.writersWaiting > 0)) {
			return null;
		}
		Hold reader = newHold(claim, now);
		entry.readers.add(reader);
		return reader;
	}

	private @Nullable Hold tryPermit(LockEntry entry, Claim claim, long now) {
		if (entry.permits.size() >= claim.permits()) {
			return null;
		}
		Hold permit = newHold(claim, now);
		entry.permits.add(permit);
		return permit;
	}

	private Hold reenter(Hold hold, Claim claim, long now) {
		if (!claim.reentrant()) {
			throw new LockSelfDeadlockException(claim.name());
		}
		hold.count++;
		hold.lease.atLeast(now, claim.leaseNanos());
		if (claim.holdAtLeastNanos() > 0) {
			hold.holdUntil(now + claim.holdAtLeastNanos());
		}
		return hold;
	}

	private Hold newHold(Claim claim, long now) {
		long token = this.fences.merge(claim.name(), 1L, Long::sum);
		Hold hold = new Hold(claim.owner(), token, new Lease(now, claim.leaseNanos(), claim.renewed()));
		if (claim.holdAtLeastNanos() > 0) {
			hold.holdUntil(now + claim.holdAtLeastNanos());
		}
		return hold;
	}

	/**
	 * Release one hold. A last release before the minimum hold leaves the lock taken by
	 * nobody until then. Called with the monitor held.
	 * @return whether the hold was still ours
	 */
	boolean release(HoldKind kind, LockName name, String owner, long token, long now, boolean keepMinimum) {
		LockEntry entry = entry(name, now);
		Hold hold = entry.find(kind, owner, token);
		if (hold == null) {
			cleanUp(name, entry);
			return false;
		}
		if (--hold.count == 0) {
			Hold lingering = keepMinimum ? hold.lingering(now) : null;
			if (kind == HoldKind.EXCLUSIVE) {
				entry.writer = lingering;
			}
			else {
				List<Hold> holds = (kind == HoldKind.READ) ? entry.readers : entry.permits;
				holds.remove(hold);
				if (lingering != null) {
					holds.add(lingering);
				}
			}
			cleanUp(name, entry);
			this.changed.signalAll();
		}
		return true;
	}

	boolean extend(HoldKind kind, LockName name, String owner, long token, long leaseNanos, long now) {
		Hold hold = find(kind, name, owner, token, now);
		if (hold != null) {
			hold.lease.atLeast(now, leaseNanos);
		}
		return hold != null;
	}

	@Nullable Hold find(HoldKind kind, LockName name, String owner, long token, long now) {
		LockEntry entry = this.entries.get(name);
		if (entry == null) {
			return null;
		}
		entry.expire(now);
		return entry.find(kind, owner, token);
	}

	@Nullable Hold findWriter(LockName name, String owner, long now) {
		LockEntry entry = this.entries.get(name);
		if (entry == null) {
			return null;
		}
		entry.expire(now);
		Hold writer = entry.writer;
		return (writer != null && writer.owner.equals(owner)) ? writer : null;
	}

	boolean isLocked(LockName name, long now) {
		LockEntry entry = this.entries.get(name);
		if (entry == null) {
			return false;
		}
		entry.expire(now);
		return entry.isLocked();
	}

	boolean isHeldBy(LockName name, String owner, long now) {
		LockEntry entry = this.entries.get(name);
		if (entry == null) {
			return false;
		}
		entry.expire(now);
		return (entry.writer != null && entry.writer.owner.equals(owner)) || entry.reader(owner) != null;
	}

	/**
	 * Return the lock names of a scope that are taken, or that anybody waits for.
	 */
	List<LockName> names(String scope, long now) {
		List<LockName> names = new ArrayList<>();
		this.entries.forEach((name, entry) -> {
			entry.expire(now);
			if (name.scope().equals(scope) && !entry.isUnused()) {
				names.add(name);
			}
		});
		return names;
	}

	long fence(LockName name) {
		return this.fences.getOrDefault(name, 0L);
	}

	long holderRemaining(LockName name, HoldKind kind, long now) {
		LockEntry entry = this.entries.get(name);
		return (entry != null) ? entry.holderRemaining(kind, now) : 0;
	}

	int fairWaiters(LockName name) {
		LockEntry entry = this.entries.get(name);
		return (entry != null) ? entry.fairQueue.size() : 0;
	}

	/**
	 * Line up a waiter: a fair one in its lock's queue, a writer among those that hold
	 * new readers back. Called with the monitor held.
	 */
	void enqueue(Claim claim, Object ticket, long now) {
		LockEntry entry = entry(claim.name(), now);
		if (claim.fair()) {
			entry.fairQueue.add(ticket);
		}
		if (claim.kind() == HoldKind.EXCLUSIVE) {
			entry.writersWaiting++;
		}
	}

	void dequeue(Claim claim, Object ticket, long now) {
		LockEntry entry = entry(claim.name(), now);
		if (claim.fair()) {
			entry.fairQueue.remove(ticket);
		}
		if (claim.kind() == HoldKind.EXCLUSIVE) {
			entry.writersWaiting--;
		}
		cleanUp(claim.name(), entry);
		// Readers held back by this writer, or the next fair waiter, may go now.
		this.changed.signalAll();
	}

	/**
	 * Sleep until something changes or the earliest lease among the names ends, at most
	 * {@code maxNanos}. Called with the monitor held.
	 */
	void awaitChange(List<Claim> claims, long maxNanos, long now) throws InterruptedException {
		long sleep = maxNanos;
		for (Claim claim : claims) {
			LockEntry entry = this.entries.get(claim.name());
			Long next = (entry != null) ? entry.nextExpiry(now) : null;
			if (next != null) {
				// A lease ends at its last nanosecond: wake just after it.
				sleep = Math.min(sleep, Math.max(0, next - now) + TimeUnit.MICROSECONDS.toNanos(100));
			}
		}
		if (sleep > 0) {
			this.changed.awaitNanos(sleep);
		}
	}

	ReentrantLock monitor() {
		return this.monitor;
	}

	private LockEntry entry(LockName name, long now) {
		LockEntry entry = this.entries.computeIfAbsent(name, (key) -> new LockEntry());
		entry.expire(now);
		return entry;
	}

	private void cleanUp(LockName name, LockEntry entry) {
		if (entry.isUnused()) {
			this.entries.remove(name);
		}
	}

}
