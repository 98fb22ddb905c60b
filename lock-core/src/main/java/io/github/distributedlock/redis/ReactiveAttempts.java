package io.github.distributedlock.redis;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of one {@link ReactiveAcquisition}, as {@link LockAttempts} keeps them for
 * the blocking engine: how many were sent, what the replies said about the holder (its
 * lease goes into the {@link Deadline}, which bounds every sleep), and the hand-off
 * request they carry. Not thread-safe: used under the acquisition's lock.
 */
final class ReactiveAttempts {

	// A timer never sleeps longer than this, so an indefinite wait stays representable.
	static final long MAX_SLEEP_NANOS = TimeUnit.HOURS.toNanos(1);

	private final LockSpec spec;

	private final String owner;

	// The hold this acquisition takes, the same in every attempt (see LockAttempts).
	private final String hold = UniqueIds.next();

	private final Deadline deadline;

	private int count;

	private long lastHolderToken = -1;

	// Whether a failed attempt was held back by readers, and so may have set a writer
	// intent.
	private boolean heldBackByReaders;

	private long lastSentNanos;

	private @Nullable HandOffRequest request;

	private boolean filed;

	/**
	 * Return the id of the hold this acquisition takes.
	 */
	String hold() {
		return this.hold;
	}

	ReactiveAttempts(LockSpec spec, String owner) {
		this.spec = spec;
		this.owner = owner;
		this.deadline = Deadline.start(spec.waitNanos());
	}

	Deadline deadline() {
		return this.deadline;
	}

	int count() {
		return this.count;
	}

	/**
	 * Count the next attempt and say what it carries; its clock reading is taken now,
	 * before it is sent.
	 */
	Next next() {
		this.count++;
		// Any earlier failed attempt with token 0, not only the last: one that found
		// another writer since does not drop the intent.
		boolean mayHaveIntent = this.heldBackByReaders;
		this.filed |= this.request != null;
		this.lastSentNanos = System.nanoTime();
		return new Next(this.lastSentNanos, this.deadline.remainingMillis(), mayHaveIntent, this.request);
	}

	/**
	 * Return whether a failed attempt was held back by readers, and so may have set a
	 * writer intent.
	 */
	boolean heldBackByReaders() {
		return this.heldBackByReaders;
	}

	/**
	 * Take in a reply that did not grant.
	 * @return whether the lock changed hands since the previous reply
	 */
	boolean noted(AcquireResult result, long nowNanos) {
		boolean changed = this.lastHolderToken != -1 && this.lastHolderToken != result.token();
		this.lastHolderToken = result.token();
		this.heldBackByReaders |= result.token() == 0 && this.spec.kind().setsWriterIntent();
		this.deadline.holderSeen(result.holderTtlMillis(), nowNanos);
		return changed;
	}

	/**
	 * Return what an attempt that took the lock won.
	 * @param sentNanos the clock reading taken before that attempt was sent
	 */
	Grant grant(AcquireResult result, long sentNanos, boolean waited) {
		return new Grant(this.spec, this.owner, result.token(), this.hold, sentNanos, waited || this.count > 1,
				this.deadline.elapsed(), this.count);
	}

	/**
	 * Carry a new request in the following attempts (the head of a line does).
	 */
	HandOffRequest fileRequest() {
		HandOffRequest filing = HandOffRequest
			.of((this.spec.strategy() == WaitStrategy.POLLING) ? this.spec.pollNanos() : 0);
		this.request = filing;
		return filing;
	}

	/**
	 * Stop carrying the request.
	 * @return the request, and whether an attempt filed it in Redis, or {@code null}
	 */
	@Nullable HandOffRequest dropRequest() {
		HandOffRequest dropped = this.request;
		this.request = null;
		return dropped;
	}

	boolean filed() {
		return this.filed;
	}

	/**
	 * Return how long the head sleeps at most before trying again: until the wait time
	 * runs out or the holder's lease (as last reported) ends, at most a poll interval
	 * when polling, and at most until the request must be filed again.
	 */
	long sleepNanos() {
		long sleep = this.deadline.sleepNanos();
		if (this.spec.strategy() == WaitStrategy.POLLING) {
			sleep = Math.min(sleep, this.spec.pollNanos());
		}
		if (this.request != null && this.count > 0) {
			// Filed again at least this often (once one attempt has filed it).
			sleep = Math.min(sleep, this.lastSentNanos + HandOffRequest.REFILE_NANOS - System.nanoTime());
		}
		return Math.max(0, Math.min(sleep, MAX_SLEEP_NANOS));
	}

	/**
	 * What one attempt carries.
	 *
	 * @param sentNanos the clock reading before it is sent
	 * @param remainingWaitMillis the wait time left, -1 for indefinitely
	 * @param mayHaveIntent whether an earlier attempt may have left a writer intent
	 * @param request the hand-off request it files, or {@code null}
	 */
	record Next(long sentNanos, long remainingWaitMillis, boolean mayHaveIntent, @Nullable HandOffRequest request) {

	}

}
