package io.github.distributedlock.inmemory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The state of one lock name: its writer (the exclusive hold), its readers, the semaphore
 * of the same name, and who waits.
 */
final class LockEntry {

	@Nullable Hold writer;

	final List<Hold> readers = new ArrayList<>();

	final List<Hold> permits = new ArrayList<>();

	final Deque<Object> fairQueue = new ArrayDeque<>();

	int writersWaiting;

	void expire(long now) {
		if (this.writer != null && this.writer.lease.expired(now)) {
			this.writer = null;
		}
		this.readers.removeIf((hold) -> hold.lease.expired(now));
		this.permits.removeIf((hold) -> hold.lease.expired(now));
	}

	boolean isUnused() {
		return this.writer == null && this.readers.isEmpty() && this.permits.isEmpty() && this.fairQueue.isEmpty()
				&& this.writersWaiting == 0;
	}

	boolean isLocked() {
		return this.writer != null || !this.readers.isEmpty();
	}

	@Nullable Hold reader(String owner) {
		for (Hold hold : this.readers) {
			if (hold.owner.equals(owner)) {
				return hold;
			}
		}
		return null;
	}

	@Nullable Hold find(HoldKind kind, String owner, long token) {
		if (kind == HoldKind.EXCLUSIVE) {
			return (this.writer != null && this.writer.isOwnedBy(owner, token)) ? this.writer : null;
		}
		for (Hold hold : (kind == HoldKind.READ) ? this.readers : this.permits) {
			if (hold.isOwnedBy(owner, token)) {
				return hold;
			}
		}
		return null;
	}

	/**
	 * Return the longest lease left of the holds that keep {@code kind} from being taken.
	 */
	long holderRemaining(HoldKind kind, long now) {
		long remaining = 0;
		for (Hold hold : blockers(kind)) {
			remaining = Math.max(remaining, hold.lease.remaining(now));
		}
		return remaining;
	}

	/**
	 * Return the earliest moment a lease of this entry ends by itself, or {@code null}.
	 */
	@Nullable Long nextExpiry(long now) {
		Long next = null;
		for (Hold hold : all()) {
			if (!hold.lease.isRenewed()) {
				long end = hold.lease.end(now);
				if (next == null || end - next < 0) {
					next = end;
				}
			}
		}
		return next;
	}

	private List<Hold> blockers(HoldKind kind) {
		if (kind == HoldKind.PERMIT) {
			return this.permits;
		}
		List<Hold> holds = new ArrayList<>(this.readers);
		if (this.writer != null) {
			holds.add(this.writer);
		}
		return holds;
	}

	private List<Hold> all() {
		List<Hold> holds = blockers(HoldKind.EXCLUSIVE);
		holds.addAll(this.permits);
		return holds;
	}

}
