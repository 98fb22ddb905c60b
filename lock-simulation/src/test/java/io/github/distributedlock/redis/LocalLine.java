package io.github.distributedlock.redis;

import java.util.ArrayDeque;
import java.util.Deque;

import io.github.distributedlock.redis.blocking.WaitQueue;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.simulation.PubSub;
import org.jspecify.annotations.Nullable;

/**
 * The waiters of one lock in one simulated JVM, as the engine's {@link WaitQueue} (and
 * {@code driver.LocalLine}) keeps them: one subscription and one {@link WaitLine} for all
 * of them, and a FIFO turn, so that only the head talks to Redis while the others wait
 * for their turn.
 * <p>
 * A JVM's line lingers after its last waiter leaves, as the engine's subscription does
 * for {@link #LINGER_NANOS}: an acquisition that starts meanwhile finds the lock "hot"
 * and lines up at once, so that its first attempt already files its request.
 */
final class LocalLine {

	/**
	 * How long a line stays subscribed, and hot, after its last waiter left: the engine's
	 * default subscription linger.
	 */
	static final long LINGER_NANOS = 2_000 * LockSimulation.MS;

	/**
	 * A waiter of the line.
	 */
	interface Waiter {

		String name();

	}

	private final String name;

	private final WaitLine line;

	private final PubSub.Subscriber subscriber;

	private final boolean listens;

	private final Deque<Waiter> waiting = new ArrayDeque<>();

	private @Nullable Waiter head;

	private long lastLeftNanos;

	private boolean everJoined;

	LocalLine(String name, WaitLine line, PubSub.Subscriber subscriber, boolean listens) {
		this.name = name;
		this.line = line;
		this.subscriber = subscriber;
		this.listens = listens;
	}

	/**
	 * Return whether its waiters act on messages (pollers don't).
	 */
	boolean listens() {
		return this.listens;
	}

	String name() {
		return this.name;
	}

	/**
	 * Return what the line heard, as its head's {@link Acquisition} reads it.
	 */
	WaitLine line() {
		return this.line;
	}

	PubSub.Subscriber subscriber() {
		return this.subscriber;
	}

	/**
	 * Return the waiter whose turn it is, if any.
	 */
	@Nullable Waiter head() {
		return this.head;
	}

	/**
	 * Return whether the lock was waited for in this JVM a moment ago: a waiter is in
	 * line, or the last one left within the linger.
	 */
	boolean hot(long nowNanos) {
		return this.head != null || !this.waiting.isEmpty()
				|| (this.everJoined && nowNanos - this.lastLeftNanos < LINGER_NANOS);
	}

	/**
	 * Join the line.
	 * @return whether it is the waiter's turn at once
	 */
	boolean join(Waiter waiter) {
		this.everJoined = true;
		if (this.head == null) {
			this.head = waiter;
			return true;
		}
		this.waiting.add(waiter);
		return false;
	}

	/**
	 * Leave the line, whether or not it was the waiter's turn.
	 * @return the waiter whose turn it is now, if the turn passed on
	 */
	@Nullable Waiter leave(Waiter waiter, long nowNanos) {
		if (this.head != waiter) {
			this.waiting.remove(waiter);
			return null;
		}
		this.lastLeftNanos = nowNanos;
		this.head = this.waiting.poll();
		return this.head;
	}

	/**
	 * Return whether the waiter is in line, its turn or not.
	 */
	boolean contains(Waiter waiter) {
		return this.head == waiter || this.waiting.contains(waiter);
	}

}
