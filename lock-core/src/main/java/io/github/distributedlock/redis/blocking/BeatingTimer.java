package io.github.distributedlock.redis.blocking;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The blocking port's timer thread. A task that becomes the first due wakes the thread,
 * so that it waits for that task instead: with a thread waiting for nothing, every task
 * set woke it, about once per waiting acquisition. While tasks are being set, this timer
 * keeps one more task of its own, a beat, at most {@link #BEAT_NANOS} ahead, so that a
 * task due later than the beat is set without a wake. The beat stops one beat after the
 * last task was set. It changes no task's time: each still runs when due. Thread-safe.
 */
final class BeatingTimer extends ScheduledThreadPoolExecutor {

	/**
	 * How far ahead the beat is kept while tasks are being set: the thread wakes about 20
	 * times a second then, and a task due sooner than the beat still wakes it.
	 */
	static final long BEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private final long beatNanos;

	/** Whether a beat is set; cleared only by the beat. */
	private final AtomicBoolean beating = new AtomicBoolean();

	/** Whether a task was set since the last beat. */
	private final AtomicBoolean set = new AtomicBoolean();

	BeatingTimer(ThreadFactory threads) {
		this(threads, BEAT_NANOS);
	}

	BeatingTimer(ThreadFactory threads, long beatNanos) {
		super(1, threads);
		setRemoveOnCancelPolicy(true);
		this.beatNanos = beatNanos;
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		ScheduledFuture<?> scheduled = super.schedule(command, delay, unit);
		this.set.set(true);
		if (this.beating.compareAndSet(false, true)) {
			setBeat();
		}
		return scheduled;
	}

	private void setBeat() {
		try {
			super.schedule(this::beat, this.beatNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Shut down: no more tasks to set.
			this.beating.set(false);
		}
	}

	private void beat() {
		if (this.set.getAndSet(false)) {
			setBeat();
			return;
		}
		this.beating.set(false);
		// A task set meanwhile found the beat still set, and set none.
		if (this.set.get() && this.beating.compareAndSet(false, true)) {
			setBeat();
		}
	}

}
