package io.github.distributedlock.redis.driver;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.NanoClock;
import io.github.distributedlock.redis.core.ReleaseMessage;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.redis.core.WaitMode;

import org.jspecify.annotations.Nullable;

/**
 * The waiters of one lock in this JVM and their wake-up signal, with no thread parked.
 * <p>
 * Waiters line up in FIFO order and only the head talks to Redis, so one release sends
 * one attempt, not one per waiter. The signal is a counter that the head reads before an
 * attempt and sleeps only while it is unchanged, so a message during the attempt is not
 * lost. A {@link ReleaseMessage} is a hint that makes the head try again, never a grant.
 * <p>
 * Callbacks into an acquisition are made outside this line's lock, so an acquisition may
 * call the line while holding its own.
 */
public final class LocalLine {

	private final String id;

	private final ArrayDeque<SingleAcquisition> waiters = new ArrayDeque<>();

	private final List<Runnable> onSubscribed = new ArrayList<>();

	// Told of every signal without joining the line: fair and multi-lock waiters.
	private final List<Runnable> watchers = new CopyOnWriteArrayList<>();

	// The head, the waiters behind it and the watchers: read without the line's lock,
	// which a subscription being made may hold for a connect.
	private final AtomicInteger waiting = new AtomicInteger();

	private @Nullable SingleAcquisition head;

	private volatile boolean subscribed;

	private volatile boolean closed;

	private final NanoClock clock;

	private final WaitLine line;

	// Told of whatever may end a hold without a release, or hide that it did: the
	// template's cohorts of this line's lock (Cohorts.lost).
	private final Runnable lossHeard;

	private LockPort.@Nullable Cancellable subscription;

	// The cohort its head's opening attempt opened, until it ends: guarded by this.
	private @Nullable Cohort cohort;

	// Guarded by the LocalLines map entry: the waiters in the line, when the last
	// one left, and whether a check for the end of the linger is scheduled.
	int references;

	long lastLeftNanos;

	boolean lingerCheckScheduled;

	/**
	 * @param keyspaceEvents whether the line listens to the lock's keyspace events
	 * ({@link WaitMode#keyspaceEvents()}), so that release messages only inform
	 * @param readers whether its waiters are readers, whom the last reader leaving does
	 * not concern ({@code LockKind#waitsAsReader()})
	 * @param lossHeard told of a message that the lock may have left its holder without a
	 * release ({@link ReleaseMessage#mayEndAHold()}), and of each gap in the
	 * subscription, in which one may have been missed
	 */
	LocalLine(String id, NanoClock clock, boolean keyspaceEvents, boolean readers, Runnable lossHeard) {
		this.id = id;
		this.clock = clock;
		this.line = new WaitLine(keyspaceEvents, readers);
		this.lossHeard = lossHeard;
	}

	String id() {
		return this.id;
	}

	/**
	 * Return what this line heard, as its head's {@link Acquisition} reads it.
	 */
	public WaitLine line() {
		return this.line;
	}

	boolean isClosed() {
		return this.closed;
	}

	synchronized void subscription(LockPort.Cancellable subscription) {
		this.subscription = subscription;
	}

	synchronized boolean hasSubscription() {
		return this.subscription != null;
	}

	boolean isSubscribed() {
		return this.subscribed;
	}

	/**
	 * The subscription failed, or the port refused one: waiters try now, and then sleep
	 * at most until the holder's lease ends, as they do whenever no message comes.
	 * @param refused whether the port refused to subscribe: then the line's subscription,
	 * if any, is another waiter's, made since, and stays
	 */
	void lostSubscription(boolean refused) {
		if (!refused) {
			synchronized (this) {
				this.subscription = null;
			}
		}
		this.lossHeard.run();
		subscribed();
	}

	/**
	 * @return whether the waiter is the head, and so may talk to Redis at once
	 */
	boolean join(SingleAcquisition waiter) {
		synchronized (this) {
			this.waiting.incrementAndGet();
			if (this.head == null) {
				this.head = waiter;
				return true;
			}
			this.waiters.add(waiter);
			return false;
		}
	}

	void leave(SingleAcquisition waiter) {
		SingleAcquisition next = null;
		synchronized (this) {
			if (this.head == waiter) {
				next = this.waiters.poll();
				this.head = next;
				this.waiting.decrementAndGet();
			}
			else if (this.waiters.remove(waiter)) {
				this.waiting.decrementAndGet();
			}
		}
		if (next != null) {
			next.promoted();
		}
	}

	/** Return how many waiters are in the line, watchers included. */
	int waiting() {
		return this.waiting.get();
	}

	/** Return whether a waiter waits behind the head. */
	synchronized boolean hasWaitersBehind() {
		return !this.waiters.isEmpty();
	}

	/**
	 * Mark the cohort that this line's head opened, before its grant completes, so that
	 * the head promoted next sleeps under it (docs/design/cohorting.md, rule 5).
	 */
	synchronized void cohortOpened(Cohort opened) {
		this.cohort = opened;
	}

	/**
	 * Return the cohort this line's head opened, while it may still pass: not ended, and
	 * its lease not over (a hold nobody released or renewed).
	 */
	synchronized @Nullable Cohort cohort() {
		Cohort current = this.cohort;
		return (current != null && !current.isEnded() && current.leaseEnd().nanos() - this.clock.nanoTime() > 0)
				? current : null;
	}

	/**
	 * Pass the cohort's hold to the head in memory, if it sleeps under the cohort and
	 * takes it (rule 4); the releaser releases through Redis otherwise.
	 * @return the hand-over, which tells the head it holds the lock, or {@code null} if
	 * the head did not take it
	 */
	@Nullable Runnable pass(Cohort from, Grant releasing, long minimumHoldLeftMillis) {
		SingleAcquisition first;
		synchronized (this) {
			first = this.head;
		}
		return (first != null) ? first.passed(from, releasing, minimumHoldLeftMillis) : null;
	}

	/**
	 * The cohort ended: its release was answered, or its hold lost. The head, if it
	 * sleeps under it, attempts now; a signal of an older cohort wakes nobody.
	 */
	void cohortEnded(Cohort ended) {
		SingleAcquisition first;
		synchronized (this) {
			if (this.cohort == ended) {
				this.cohort = null;
			}
			first = this.head;
		}
		if (first != null) {
			first.cohortEnded(ended.number());
		}
	}

	/**
	 * Run the callback once the channel is subscribed or the line closed (now if it is).
	 */
	void whenSubscribed(Runnable callback) {
		synchronized (this) {
			if (!this.subscribed && !this.closed) {
				this.onSubscribed.add(callback);
				return;
			}
		}
		callback.run();
	}

	void subscribed() {
		List<Runnable> callbacks;
		boolean again;
		synchronized (this) {
			again = this.subscribed;
			if (again) {
				callbacks = List.of();
			}
			else {
				this.subscribed = true;
				callbacks = new ArrayList<>(this.onSubscribed);
				this.onSubscribed.clear();
			}
		}
		if (again) {
			// A gap: a forced release or the key gone may have been missed too.
			this.lossHeard.run();
		}
		if (callbacks.isEmpty()) {
			// Subscribed again after a reconnect: a release may have been missed.
			signal(true);
		}
		callbacks.forEach(Runnable::run);
	}

	void onMessage(byte[] body) {
		ReleaseMessage message = ReleaseMessage.parse(body);
		if (message.mayEndAHold()) {
			this.lossHeard.run();
		}
		switch (this.line.hear(message, this.clock.nanoTime())) {
			case TRY -> signal(true);
			case RESERVED_ELSEWHERE -> signal(false);
			case NOTHING -> {
			}
		}
	}

	private void signal(boolean retry) {
		SingleAcquisition woken;
		synchronized (this) {
			this.line.signal(retry);
			woken = this.head;
		}
		if (woken != null) {
			woken.signalled();
		}
		this.watchers.forEach(Runnable::run);
	}

	/**
	 * Tell a waiter that does not join the line of every signal, until it unwatches.
	 */
	void watch(Runnable watcher) {
		this.watchers.add(watcher);
		this.waiting.incrementAndGet();
	}

	void unwatch(Runnable watcher) {
		if (this.watchers.remove(watcher)) {
			this.waiting.decrementAndGet();
		}
	}

	/**
	 * Mark the line closed, before its waiters fail ({@link LocalLines#close}): one
	 * promoted meanwhile fails instead of trying.
	 */
	void markClosed() {
		this.closed = true;
	}

	/**
	 * Close the line, once its waiters failed ({@link LocalLines#close}): the
	 * subscription is dropped, and what waited for it runs, to find the line closed.
	 */
	void close() {
		List<Runnable> callbacks;
		synchronized (this) {
			this.closed = true;
			callbacks = new ArrayList<>(this.onSubscribed);
			this.onSubscribed.clear();
		}
		unsubscribe();
		callbacks.forEach(Runnable::run);
	}

	void unsubscribe() {
		LockPort.Cancellable current;
		synchronized (this) {
			current = this.subscription;
			this.subscription = null;
		}
		if (current != null) {
			current.cancel();
		}
	}

	@Override
	public String toString() {
		return "LocalLine[" + this.id + "]";
	}

}
