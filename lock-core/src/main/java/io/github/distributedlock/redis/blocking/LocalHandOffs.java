package io.github.distributedlock.redis.blocking;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.Waiting;
import io.github.distributedlock.redis.script.LockKind;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The hand-off inside one JVM for the blocking engine: the release of the last hold of a
 * plain lock grants the lock to the sleeping head of the lock's local {@link WaitQueue},
 * if that head {@linkplain HandOverOffer offers} itself and is of another owner, in one
 * script ({@code hand-over.lua}); at most {@code limit} such grants in a row while a
 * request of another process waits. See {@code docs/design/waiting-and-hand-off.md},
 * "Hand-off inside one JVM".
 * <p>
 * It also keeps, per plain lock, the latest hold of this template that was won
 * ({@link #held}), until that hold ends ({@link #ended}), which then signals the lock's
 * local line: a head that gets its turn while such a hold of another owner lasts offers
 * itself before its first attempt ({@link #localHold}), and is woken by its end whatever
 * path the release took ("Offering before the first attempt"). Thread-safe.
 */
public final class LocalHandOffs {

	private static final Log logger = LogFactory.getLog(LocalHandOffs.class);

	/** What {@link #release} returns when no head took the hold: release it as usual. */
	static final long NOT_HANDED_OVER = Long.MIN_VALUE + 1;

	private final WaitQueues queues;

	private final LockCommands commands;

	private final int limit;

	private final AtomicLong grants = new AtomicLong();

	private final AtomicLong passedOn = new AtomicLong();

	// Per local queue (lock and wait strategy), the latest hold of a plain lock this
	// template won: its end signals that queue only, so a head of another queue of the
	// lock (another strategy) must not find it.
	private final ConcurrentHashMap<String, Holder> holders = new ConcurrentHashMap<>();

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
	 * re-entry's attempt. A refusal at the limit releases the hold in the same script;
	 * any other refusal releases it with {@code release.lua}; in every case the head is
	 * told, and a head granted the lock decides itself whether it came in time.
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
		String lockKey = spec.lockKey();
		// The head is settled once: by the thread that reads a granting reply (the
		// connection's I/O thread, which wakes the head at once), or else here.
		AtomicBoolean settling = new AtomicBoolean();
		// What this thread settles the head with, or null once the head is granted.
		HandOverOffer.@Nullable Settlement settled = HandOverOffer.Settlement.FAILED;
		try {
			holds.sending(head.owner(), lockKey);
			long sentNanos = System.nanoTime();
			long token;
			try {
				token = this.commands.handOver(released, head, this.limit, (granted) -> {
					if (settling.compareAndSet(false, true)) {
						grant(queue, head, holds, lockKey, granted, sentNanos);
					}
				});
			}
			catch (RuntimeException ex) {
				if (!settling.compareAndSet(false, true)) {
					// The reply came as the wait for it ended, and granted the lock.
					settled = null;
					return 0;
				}
				holds.failed(head.owner(), lockKey);
				// A refusal whose reply came too late leaves the hold in Redis, and the
				// owner's next acquisition would count as a re-entry of it: released too.
				this.commands.releaseAsync(released);
				throw ex;
			}
			if (token > 0) {
				settled = null;
				if (settling.compareAndSet(false, true)) {
					// This thread saw the reply before its callback ran: it settles.
					grant(queue, head, holds, lockKey, token, sentNanos);
				}
				return 0;
			}
			holds.replied(head.owner(), lockKey, -1);
			settled = HandOverOffer.Settlement.REFUSED;
			if (token == LockCommands.PASSED_ON) {
				// Refused at the limit, and released in the same script as release.lua
				// would: reserved for the oldest request, or freed. The head tries at
				// once, and may find the lock reserved for its own request.
				this.passedOn.incrementAndGet();
				return 0;
			}
			// Refused, nothing changed: released as usual, which reserves the lock for
			// the oldest request; the head then tries at once.
			return this.commands.release(released, 0);
		}
		finally {
			if (settled != null) {
				queue.settle(head, settled);
			}
		}
	}

	// The hand-over granted the head the lock: its lease counts from before the
	// hand-over was sent.
	private void grant(WaitQueue queue, HandOverOffer head, HoldRegistry holds, String lockKey, long token,
			long sentNanos) {
		try {
			holds.replied(head.owner(), lockKey, head.leaseMillis());
			this.grants.incrementAndGet();
		}
		catch (RuntimeException ex) {
			// Maybe on the connection's I/O thread, where nobody would see it.
			logger.warn("Could not note a local grant of " + lockKey, ex);
		}
		finally {
			queue.settle(head, HandOverOffer.Settlement.granted(token, sentNanos));
		}
	}

	/**
	 * Note a hold of a plain lock that an acquisition of this template won, before it
	 * leaves the lock's local line: the next head may offer itself to its release.
	 */
	void held(Grant grant) {
		LockSpec spec = grant.spec();
		if (spec.plainExclusive()) {
			long leaseEnd = grant.sentNanos() + TimeUnit.MILLISECONDS.toNanos(spec.leaseMillis());
			this.holders.put(spec.queueId(), new Holder(grant.owner(), grant.hold(), leaseEnd));
		}
	}

	/**
	 * Note that a hold ended (released, whether or not a reply came; lost; never handed
	 * to its caller) and, if it was the lock's latest, wake the head of the lock's local
	 * line, which may sleep offering itself to it.
	 */
	void ended(Grant grant) {
		LockSpec spec = grant.spec();
		if (!spec.plainExclusive()) {
			return;
		}
		boolean[] removed = { false };
		this.holders.computeIfPresent(spec.queueId(), (key, holder) -> {
			removed[0] = holder.hold().equals(grant.hold());
			return removed[0] ? null : holder;
		});
		if (removed[0]) {
			WaitQueue queue = this.queues.find(spec.queueId());
			if (queue != null) {
				queue.signal();
			}
		}
	}

	/**
	 * Return the hold of this template that a head of the given owner may offer itself to
	 * before its first attempt: the lock's latest hold, of another owner, its lease not
	 * over by the local clock, taken by a request of the head's own wait strategy (whose
	 * end signals the head's queue).
	 * @param signalsBefore the line's signal count, read before this call
	 * @return that hold, or {@code null} for none
	 */
	Waiting.@Nullable LocalHold localHold(LockSpec spec, String owner, long signalsBefore) {
		Holder holder = this.holders.get(spec.queueId());
		if (holder == null || holder.owner().equals(owner) || holder.leaseEndNanos() - System.nanoTime() <= 0) {
			return null;
		}
		return new Waiting.LocalHold(signalsBefore, holder.leaseEndNanos());
	}

	/**
	 * Forget the holds whose lease is over by the local clock (a handle never closed).
	 */
	void sweep() {
		long now = System.nanoTime();
		this.holders.values().removeIf((holder) -> holder.leaseEndNanos() - now <= 0);
	}

	/**
	 * Return how many holds are kept for heads to offer themselves to, for tests.
	 */
	public int holders() {
		return this.holders.size();
	}

	/**
	 * Return how many hand-overs granted the lock, for tests.
	 */
	public long grants() {
		return this.grants.get();
	}

	/**
	 * Return how many hand-overs refused at the limit and released the hold in the same
	 * script ({@code hand-over.lua}'s {@code [2]}), for tests.
	 */
	public long passedOn() {
		return this.passedOn.get();
	}

	/**
	 * A hold won by this template: its owner, hold id and lease end by the local clock
	 * (as its grant counts it, before any renewal).
	 */
	private record Holder(String owner, String hold, long leaseEndNanos) {
	}

}
