package io.github.distributedlock.redis;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * The waiters of one lock in this JVM, and their wake-up signal.
 * <p>
 * Waiters queue locally in FIFO order for their {@linkplain #turn() turn}. Only the
 * thread whose turn it is talks to Redis, so one release sends one thread at Redis, not
 * all of them. The signal is a counter: a waiter reads it before trying the lock and then
 * waits for it to change, so a release that lands between the attempt and the wait is not
 * lost.
 * <p>
 * For pub/sub and keyspace waiting, this is also the listener of the lock's channel, held
 * by {@link WaitQueues} for as long as there are waiters, plus a short linger.
 */
final class WaitQueue implements MessageListener, SubscriptionListener {

	private static final int ADDRESSED_LIMIT = 256;

	private final String id;

	private final List<String> channels;

	private final AtomicInteger unconfirmed;

	private final boolean keyspaceEvents;

	private final boolean readers;

	private final ReentrantLock turn = new ReentrantLock(true);

	private final ReentrantLock signalLock = new ReentrantLock();

	private final Condition signalled = this.signalLock.newCondition();

	private volatile long signals;

	private volatile long lastProgressNanos;

	private volatile long plainSignals;

	// Signals that call for another attempt: all but reservations for others, after which
	// the lock is taken.
	private volatile long retrySignals;

	// The requests of this JVM's waiters on this lock: a reservation for one of them is a
	// call
	// to try again.
	private final Set<String> requests = ConcurrentHashMap.newKeySet();

	// The last reservation for anyone else: the lock stays taken at most for its claim,
	// unless
	// that waiter takes it.
	private volatile @Nullable Reservation lastReservation;

	// When the waiter whose turn it is wakes up by itself, while it sleeps (0 while it is
	// awake);
	// a hand-off whose claim ends later need not wake it. Guarded by signalLock for
	// writes.
	private volatile long headWakeNanos;

	// Threads waiting for any signal (fair and multi-lock waiters), which hand-offs wake
	// as well.
	private final AtomicInteger plainSleepers = new AtomicInteger();

	// Fair waiters named by recent releases; bounded, as it also collects other JVMs'
	// waiters.
	private final Set<String> addressed = Collections.synchronizedSet(new LinkedHashSet<>());

	private volatile boolean closed;

	// The holder's lease as the latest attempt of any waiter here saw it: the timeout of
	// a
	// waiter that never reached the head reports it.
	private volatile @Nullable HolderSighting holder;

	private final CompletableFuture<Void> subscribed = new CompletableFuture<>();

	// Guarded by the WaitQueues map entry (ConcurrentHashMap.compute).
	int references;

	@Nullable Runnable pendingRemoval;

	WaitQueue(String id, List<String> channels, boolean keyspaceEvents, boolean readers) {
		this.id = id;
		this.channels = channels;
		this.unconfirmed = new AtomicInteger(channels.size());
		this.keyspaceEvents = keyspaceEvents;
		this.readers = readers;
	}

	String id() {
		return this.id;
	}

	List<String> channels() {
		return this.channels;
	}

	ReentrantLock turn() {
		return this.turn;
	}

	CompletableFuture<Void> subscribed() {
		return this.subscribed;
	}

	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Return the signal count, to be passed to {@link #awaitSignal(long, long)} after the
	 * next attempt.
	 */
	long signals() {
		return this.signals;
	}

	/**
	 * Wait until the signal count differs from {@code seen}, or the time runs out.
	 * @return whether a signal arrived
	 */
	boolean awaitSignal(long seen, long nanos) throws InterruptedException {
		if (this.signals != seen) {
			return true;
		}
		this.plainSleepers.incrementAndGet();
		try {
			return await(seen, nanos, false);
		}
		finally {
			this.plainSleepers.decrementAndGet();
		}
	}

	/**
	 * Like {@link #awaitSignal(long, long)}, for the waiter whose turn it is: a hand-off
	 * to another waiter wakes it only if the new holder's claim lease ends before it
	 * would wake anyway (it tries again then, and learns the holder's lease).
	 */
	boolean awaitSignalAsHead(long seen, long nanos) throws InterruptedException {
		if (this.signals != seen) {
			return true;
		}
		return await(seen, nanos, true);
	}

	private boolean await(long seen, long nanos, boolean head) throws InterruptedException {
		this.signalLock.lockInterruptibly();
		try {
			if (head) {
				this.headWakeNanos = System.nanoTime() + nanos;
			}
			long left = nanos;
			while (this.signals == seen && left > 0) {
				left = this.signalled.awaitNanos(left);
			}
			return this.signals != seen;
		}
		finally {
			if (head) {
				this.headWakeNanos = 0;
			}
			this.signalLock.unlock();
		}
	}

	/**
	 * Wait for the subscription to be confirmed, at most the given time.
	 */
	void awaitSubscribed(long nanos) throws InterruptedException {
		if (this.subscribed.isDone() || nanos <= 0) {
			return;
		}
		try {
			this.subscribed.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
			// The caller retries anyway and never waits past the holder's lease.
		}
	}

	/**
	 * Return how many signals that call for another attempt were heard: all but
	 * reservations for other waiters.
	 */
	long retrySignals() {
		return this.retrySignals;
	}

	/**
	 * Listen for reservations for this request: each wakes the waiters to try again.
	 */
	void expect(HandOffRequest request) {
		this.requests.add(request.member());
	}

	/**
	 * Stop listening for reservations for this request.
	 */
	void forget(HandOffRequest request) {
		this.requests.remove(request.member());
	}

	/**
	 * Return the last reservation heard for a waiter of another process (or another local
	 * queue), if any.
	 */
	@Nullable Reservation lastReservation() {
		return this.lastReservation;
	}

	void signal() {
		signal(true);
	}

	private void signal(boolean retry) {
		this.signalLock.lock();
		try {
			if (retry) {
				this.retrySignals++;
			}
			this.signals++;
			this.signalled.signalAll();
		}
		finally {
			this.signalLock.unlock();
		}
	}

	/**
	 * Record that the lock changed hands, so queued waiters with a progress-aware timeout
	 * can restart their wait time.
	 */
	void markProgress(long nanoTime) {
		this.lastProgressNanos = nanoTime;
	}

	long lastProgressNanos() {
		return this.lastProgressNanos;
	}

	void close() {
		this.closed = true;
		this.subscribed.complete(null);
		signal();
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		ReleaseMessage heard = ReleaseMessage.parse(message.getBody());
		if (heard instanceof ReleaseMessage.Reserved reserved) {
			onReserved(reserved);
			return;
		}
		if (heard instanceof ReleaseMessage.NextInLine next) {
			address(next.waiter());
		}
		if (heard.isPlain()) {
			this.plainSignals++;
		}
		if (heard.wakes(this.keyspaceEvents, this.readers)) {
			signal();
		}
	}

	private void onReserved(ReleaseMessage.Reserved reserved) {
		long now = System.nanoTime();
		markProgress(now);
		if (this.requests.contains(reserved.request())) {
			// A hint, not a grant: the waiter's own attempt takes the lock, if Redis
			// agrees.
			signal(true);
			return;
		}
		Reservation reservation = new Reservation(reserved.claimMillis(), now);
		this.lastReservation = reservation;
		// The lock is taken again: nobody needs to try, but waiters must not sleep past
		// the
		// claim, which lapses if that waiter never takes the lock.
		long headWake = this.headWakeNanos;
		if (headWake == 0 || reservation.endNanos() - headWake < 0 || this.plainSleepers.get() > 0) {
			signal(false);
		}
	}

	@Override
	public void onChannelSubscribed(byte[] channel, long count) {
		if (this.subscribed.isDone() || this.unconfirmed.decrementAndGet() > 0) {
			// Subscribed again after a reconnect: a release may have been missed
			// meanwhile.
			signal();
			return;
		}
		this.subscribed.complete(null);
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
	 * Note the holder's lease an attempt of a waiter here saw.
	 */
	void holderSeen(@Nullable HolderSighting seen) {
		this.holder = HolderSighting.latest(this.holder, seen);
	}

	/**
	 * Return the latest holder's lease an attempt here saw, or {@code null}.
	 */
	@Nullable HolderSighting holder() {
		return this.holder;
	}

	/**
	 * Return whether a release named this fair waiter as next, forgetting it.
	 * @param waiter the digest of the waiter's owner, as the release names it
	 */
	boolean consumeAddressed(String waiter) {
		return this.addressed.remove(waiter);
	}

	/**
	 * Return how many releases that named no fair waiter were heard (plain releases,
	 * lease ends seen as keyspace events, forced releases).
	 */
	long plainSignals() {
		return this.plainSignals;
	}

	/**
	 * A reservation for someone else's request, as its message announced it.
	 *
	 * @param claimMillis how long the reservation waits for that waiter
	 * @param receivedNanos when the message arrived
	 */
	record Reservation(long claimMillis, long receivedNanos) {

		long endNanos() {
			return this.receivedNanos + TimeUnit.MILLISECONDS.toNanos(this.claimMillis);
		}

	}

	@Override
	public String toString() {
		return "WaitQueue[" + this.id + "]";
	}

}
