package io.github.distributedlock.redis.core;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * What a local line of waiters for one lock has heard on the lock's channels, and what
 * each message asks of it. The {@link Acquisition} at the head reads it; the driver's
 * {@code LocalLine} feeds it messages, counts signals and wakes its waiters.
 * <p>
 * A message is a hint, never a grant: it can make the head try again, or sleep less,
 * never hold. The counts only grow, so a head that read them before an attempt sees
 * whatever landed during it. Thread-safe; does no I/O and reads no clock.
 */
public final class WaitLine {

	private static final int ADDRESSED_LIMIT = 256;

	private final boolean keyspaceEvents;

	private final boolean readers;

	// The requests of this line's waiters: a reservation for one calls for a try.
	private final Set<String> requests = ConcurrentHashMap.newKeySet();

	private final AtomicLong lastProgressNanos = new AtomicLong();

	// Fair waiters named by recent releases; bounded, as it collects other JVMs' too.
	private final Set<String> addressed = Collections.synchronizedSet(new LinkedHashSet<>());

	private volatile long signals;

	// Signals that call for another attempt: all but reservations for others, after
	// which the lock is taken again.
	private volatile long retrySignals;

	private volatile long plainSignals;

	// The releases heard that named a fair waiter, any one.
	private volatile long namedSignals;

	// The last reservation for another process or line: the lock stays taken at most
	// for its claim, unless that waiter takes it.
	private volatile @Nullable Reservation lastReservation;

	// The holder's lease as the latest attempt here saw it: the timeout of a waiter
	// that never reached the head reports it.
	private volatile @Nullable HolderSighting holder;

	// The token of the latest reply read here: a new head compares its first reply.
	private volatile @Nullable TokenSighting token;

	/** Both flags as {@link ReleaseMessage#wakes} takes them. */
	public WaitLine(boolean keyspaceEvents, boolean readers) {
		this.keyspaceEvents = keyspaceEvents;
		this.readers = readers;
	}

	/**
	 * Take in a message heard on the lock's channels and say what it asks of the waiters.
	 * Counts no signal: the caller does, with {@link #signal(boolean)}, as it wakes them.
	 * @param nowNanos when it arrived, on the acquisitions' clock
	 */
	public Heard hear(ReleaseMessage message, long nowNanos) {
		if (message instanceof ReleaseMessage.NextInLine next) {
			address(next.waiter());
			synchronized (this) {
				this.namedSignals++;
			}
		}
		if (message instanceof ReleaseMessage.Reserved reserved) {
			markProgress(nowNanos);
			if (this.requests.contains(reserved.request())) {
				// A hint only: the waiter's own attempt takes the lock, if Redis agrees.
				return Heard.TRY;
			}
			this.lastReservation = new Reservation(reserved.claimMillis(), nowNanos);
			return Heard.RESERVED_ELSEWHERE;
		}
		if (message.isPlain()) {
			synchronized (this) {
				this.plainSignals++;
			}
		}
		return message.wakes(this.keyspaceEvents, this.readers) ? Heard.TRY : Heard.NOTHING;
	}

	private void address(String waiter) {
		synchronized (this.addressed) {
			if (this.addressed.size() >= ADDRESSED_LIMIT) {
				Iterator<String> oldest = this.addressed.iterator();
				oldest.next();
				oldest.remove();
			}
			this.addressed.add(waiter);
		}
	}

	/**
	 * Return whether a release named this waiter ({@code <owner digest>|<hold>}) next,
	 * forgetting it.
	 */
	boolean consumeAddressed(String waiter) {
		return this.addressed.remove(waiter);
	}

	/**
	 * Count a signal, before waking the waiters with it.
	 * @param retry whether it calls for another attempt (not a reservation for another)
	 */
	public synchronized void signal(boolean retry) {
		if (retry) {
			this.retrySignals++;
		}
		this.signals++;
	}

	/**
	 * Return how many signals were counted: messages that may concern a waiter, and
	 * re-subscriptions, after which a release may have been missed.
	 */
	public long signals() {
		return this.signals;
	}

	long retrySignals() {
		return this.retrySignals;
	}

	/** Return how many plain releases ({@link ReleaseMessage#isPlain()}) were heard. */
	long plainSignals() {
		return this.plainSignals;
	}

	long namedSignals() {
		return this.namedSignals;
	}

	public @Nullable Reservation lastReservation() {
		return this.lastReservation;
	}

	/** Listen for reservations for this request: each calls the line to try again. */
	public void expect(HandOffRequest request) {
		this.requests.add(request.member());
	}

	public void forget(HandOffRequest request) {
		this.requests.remove(request.member());
	}

	/** Record a change of hands; an older reading than the one kept changes nothing. */
	void markProgress(long nanos) {
		this.lastProgressNanos.accumulateAndGet(nanos, WaitLine::later);
	}

	/** Return when the lock was last seen changing hands, or 0. */
	long lastProgressNanos() {
		return this.lastProgressNanos.get();
	}

	void holderSeen(@Nullable HolderSighting seen) {
		this.holder = HolderSighting.latest(this.holder, seen);
	}

	public @Nullable HolderSighting holder() {
		return this.holder;
	}

	/**
	 * Note the token a reply read here named, the holder's or the grant's, and that
	 * holder's lease (negative for none). An older reading changes nothing.
	 */
	synchronized void tokenSeen(long token, long leaseMillis, long seenNanos) {
		TokenSighting last = this.token;
		if (last == null || seenNanos - last.seenNanos() >= 0) {
			this.token = new TokenSighting(token, leaseMillis, seenNanos, this.signals);
		}
	}

	/**
	 * Return the token of the latest reply read here if it still named the holder when a
	 * waiter started, as far as the line can tell: it was read since, or before with a
	 * lease that outlasted the start and no signal (a release) between the reading and
	 * the waiter's joining. None if the line marked a change of hands after the reading:
	 * the wait restarts from that mark, and a first reply that differs would restart it
	 * again, later.
	 * @param signalsAtJoin the line's signal count when the waiter joined
	 */
	@Nullable Long holderTokenAt(long startNanos, long signalsAtJoin) {
		TokenSighting seen = this.token;
		long progress = lastProgressNanos();
		if (seen == null || (progress != 0 && progress - seen.seenNanos() > 0)) {
			return null;
		}
		boolean since = seen.seenNanos() - startNanos >= 0;
		boolean stillHeld = seen.signals() == signalsAtJoin && (seen.leaseMillis() < 0
				|| seen.seenNanos() + TimeUnit.MILLISECONDS.toNanos(seen.leaseMillis()) - startNanos > 0);
		return (since || stillHeld) ? seen.token() : null;
	}

	/**
	 * Return the later of two readings of when the lock changed hands (0 for none): a
	 * reply that reports an older change must not move it back.
	 */
	static long later(long current, long candidate) {
		return (current == 0 || candidate - current > 0) ? candidate : current;
	}

	/** What a message asks of the line's waiters. */
	public enum Heard {

		/** Nothing: the message only informs. */
		NOTHING,

		/** The head tries again: the lock may be free, or is reserved for this line. */
		TRY,

		/**
		 * The lock is reserved for someone else: a hint that the holder's lease may end
		 * sooner (the claim), never a reason to try now.
		 */
		RESERVED_ELSEWHERE

	}

	/**
	 * The token a reply named (the holder's or the grant's), that holder's lease left
	 * (negative for none), and when it was read, with the line's signal count then.
	 */
	record TokenSighting(long token, long leaseMillis, long seenNanos, long signals) {
	}

	/** A reservation for someone else's request, as its message announced it. */
	public record Reservation(long claimMillis, long receivedNanos) {
	}

}
