package io.github.distributedlock.redis.blocking;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.ReleaseMessage;
import io.github.distributedlock.redis.core.WaitLine;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * The waiters of one lock in this JVM, and their wake-up signal.
 * <p>
 * Waiters queue locally in FIFO order, each in its {@link Place}; the first has the turn
 * ({@link #awaitTurn}). Only the thread whose turn it is talks to Redis, so one release
 * sends one thread at Redis, not all of them. The turn passes as the first leaves. The
 * signal is a counter: a waiter reads it before trying the lock and then waits for it to
 * change, so a release that lands between the attempt and the wait is not lost.
 * <p>
 * For pub/sub and keyspace waiting, this is also the listener of the lock's channel, held
 * by {@link WaitQueues} for as long as there are waiters, plus a short linger.
 */
public final class WaitQueue implements MessageListener, SubscriptionListener {

	private final String id;

	private final List<String> channels;

	private final AtomicInteger unconfirmed;

	private final WaitLine line;

	// The waiters' places, in the order they joined: the first has the turn. Guarded
	// by itself.
	private final ArrayDeque<Place> places = new ArrayDeque<>();

	private final ReentrantLock signalLock = new ReentrantLock();

	private final Condition signalled = this.signalLock.newCondition();

	// When the waiter whose turn it is wakes up by itself, while it sleeps (0 while it is
	// awake); a hand-off whose claim ends later need not wake it. Guarded by signalLock
	// for writes.
	private volatile long headWakeNanos;

	// Threads waiting for any signal (fair and multi-lock waiters), which hand-offs wake
	// as well.
	private final AtomicInteger plainSleepers = new AtomicInteger();

	private volatile boolean closed;

	private final CompletableFuture<Void> subscribed = new CompletableFuture<>();

	// Guarded by the WaitQueues map entry (ConcurrentHashMap.compute): the waiters in
	// the queue, when the last one left, and whether a check for the end of the linger
	// is scheduled.
	int references;

	long lastLeftNanos;

	boolean lingerCheckScheduled;

	public WaitQueue(String id, List<String> channels, boolean keyspaceEvents, boolean readers) {
		this.id = id;
		this.channels = channels;
		this.unconfirmed = new AtomicInteger(channels.size());
		this.line = new WaitLine(keyspaceEvents, readers);
	}

	String id() {
		return this.id;
	}

	List<String> channels() {
		return this.channels;
	}

	/**
	 * Return what this line heard, as its head's {@link Acquisition} reads it.
	 */
	public WaitLine line() {
		return this.line;
	}

	/**
	 * Join the line as its last place.
	 */
	Place join() {
		Place place = new Place(Thread.currentThread());
		synchronized (this.places) {
			this.places.addLast(place);
		}
		return place;
	}

	/**
	 * Return whether the place is first in line, and so has the turn.
	 */
	boolean hasTurn(Place place) {
		synchronized (this.places) {
			return this.places.peekFirst() == place;
		}
	}

	/**
	 * Wait until the place is first in line, at most the given time; a place that waited
	 * in vain keeps its place.
	 * @return whether it has the turn
	 */
	boolean awaitTurn(Place place, long nanos) throws InterruptedException {
		long until = System.nanoTime() + nanos;
		while (!hasTurn(place)) {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			long left = until - System.nanoTime();
			if (left <= 0) {
				return false;
			}
			LockSupport.parkNanos(this, left);
		}
		return true;
	}

	/**
	 * Leave the line; if the place was first, the next one has the turn, and its thread
	 * is woken.
	 */
	void leave(Place place) {
		Thread next = null;
		synchronized (this.places) {
			boolean first = this.places.peekFirst() == place;
			this.places.remove(place);
			Place after = this.places.peekFirst();
			if (first && after != null) {
				next = after.thread;
			}
		}
		if (next != null) {
			LockSupport.unpark(next);
		}
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
		return this.line.signals();
	}

	/**
	 * Wait until the signal count differs from {@code seen}, or the time runs out.
	 * @return whether a signal arrived
	 */
	boolean awaitSignal(long seen, long nanos) throws InterruptedException {
		if (this.line.signals() != seen) {
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
		if (this.line.signals() != seen) {
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
			while (this.line.signals() == seen && left > 0) {
				left = this.signalled.awaitNanos(left);
			}
			return this.line.signals() != seen;
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

	public void signal() {
		signal(true);
	}

	private void signal(boolean retry) {
		this.signalLock.lock();
		try {
			this.line.signal(retry);
			this.signalled.signalAll();
		}
		finally {
			this.signalLock.unlock();
		}
	}

	void close() {
		this.closed = true;
		this.subscribed.complete(null);
		signal();
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		ReleaseMessage heard = ReleaseMessage.parse(message.getBody());
		switch (this.line.hear(heard, System.nanoTime())) {
			case TRY -> signal(true);
			case RESERVED_ELSEWHERE -> {
				// The lock is taken again: nobody needs to try, but waiters must not
				// sleep past the claim, which lapses if that waiter never takes the lock.
				WaitLine.Reservation reservation = this.line.lastReservation();
				long headWake = this.headWakeNanos;
				if (reservation == null || headWake == 0 || reservation.endNanos() - headWake < 0
						|| this.plainSleepers.get() > 0) {
					signal(false);
				}
			}
			case NOTHING -> {
			}
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

	@Override
	public String toString() {
		return "WaitQueue[" + this.id + "]";
	}

	/**
	 * One waiter's place in the line: its thread.
	 */
	static final class Place {

		private final Thread thread;

		private Place(Thread thread) {
			this.thread = thread;
		}

	}

}
