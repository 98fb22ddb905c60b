package io.github.distributedlock.redis.blocking;

import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.LockKind;

/**
 * The hand-off inside one JVM for the blocking engine: the release of the last hold of a
 * plain lock grants the lock to the sleeping head of the lock's local {@link WaitQueue},
 * if that head {@linkplain HandOverOffer offers} itself and is of another owner, in one
 * script ({@code hand-over.lua}); at most {@code limit} such grants in a row while a
 * request of another process waits. See {@code docs/design/waiting-and-hand-off.md},
 * "Hand-off inside one JVM". Thread-safe.
 */
public final class LocalHandOffs {

	/** What {@link #release} returns when no head took the hold: release it as usual. */
	static final long NOT_HANDED_OVER = Long.MIN_VALUE + 1;

	private final WaitQueues queues;

	private final LockCommands commands;

	private final int limit;

	private final AtomicLong grants = new AtomicLong();

	/**
	 * @param limit the most grants in a row while a request of another process waits, at
	 * least 1
	 */
	public LocalHandOffs(WaitQueues queues, LockCommands commands, int limit) {
		if (limit < 1) {
			throw new IllegalArgumentException("local hand-offs must be at least 1, but was " + limit);
		}
		this.queues = queues;
		this.commands = commands;
		this.limit = limit;
	}

	/**
	 * Release the last hold of a plain lock by granting the lock to the sleeping head of
	 * its local line, if there is one of another owner. The head's owner counts as
	 * writing a lease from before the hand-over is sent until its reply, as for a
	 * re-entry's attempt. A refusal releases the hold with {@code release.lua}; in every
	 * case the head is told, and a head granted the lock decides itself whether it came
	 * in time.
	 * @param released the hold, whose owner holds no other hold of the lock and keeps no
	 * minimum hold
	 * @return what the release returns ({@code 0}: no hold left), or
	 * {@link #NOT_HANDED_OVER} if no head offered itself
	 * @throws io.github.distributedlock.LockAccessException if a script got no reply
	 */
	long release(Grant released, HoldRegistry holds) {
		LockSpec spec = released.spec();
		if (spec.kind() != LockKind.EXCLUSIVE) {
			return NOT_HANDED_OVER;
		}
		WaitQueue queue = this.queues.find(spec.queueId());
		HandOverOffer head = (queue != null) ? queue.takeOffer(released.owner()) : null;
		if (queue == null || head == null) {
			return NOT_HANDED_OVER;
		}
		HandOverOffer.Settlement settled = HandOverOffer.Settlement.FAILED;
		try {
			holds.sending(head.owner(), spec.lockKey());
			long sentNanos = System.nanoTime();
			long token;
			try {
				token = this.commands.handOver(released, head, this.limit);
			}
			catch (RuntimeException ex) {
				holds.failed(head.owner(), spec.lockKey());
				throw ex;
			}
			holds.replied(head.owner(), spec.lockKey(), (token > 0) ? head.leaseMillis() : -1);
			if (token > 0) {
				this.grants.incrementAndGet();
				settled = HandOverOffer.Settlement.granted(token, sentNanos);
				return 0;
			}
			// Refused, nothing changed: released as usual, which reserves the lock for
			// the oldest request; the head then tries at once.
			settled = HandOverOffer.Settlement.REFUSED;
			return this.commands.release(released, 0);
		}
		finally {
			queue.settle(head, settled);
		}
	}

	/**
	 * Return how many hand-overs granted the lock, for tests.
	 */
	public long grants() {
		return this.grants.get();
	}

}
