package io.github.distributedlock;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Interrupts the thread that runs a locked section when the section's lease is found lost
 * ({@link LockHandle#whenLost()}) or runs out ({@link LockHandle#remainingLease()}
 * reaches zero) while the thread is inside, and never once it has left.
 * <p>
 * The interrupt and the section's end race for one state: the thread leaves only if no
 * interrupt has begun, and an interrupt begins only while the thread is inside. A thread
 * that loses the race waits, inside, until the interrupt has been delivered, and then
 * clears it, so that its interrupt status is as it was when the work began. An interrupt
 * that someone else sent first is left alone.
 * <p>
 * Interrupts and deadline checks run on one daemon thread per JVM, started with the first
 * section that asks for them: not on the watchdog's thread, which renews every lease of a
 * template and may itself wait for a Redis that does not answer, and not there because an
 * interrupt may close the work's channels, which is I/O.
 */
final class LeaseLossInterrupt {

	private static final int INSIDE = 0;

	private static final int INTERRUPTING = 1;

	private static final int TRIPPED = 2;

	private static final int LEFT = 3;

	private final AtomicInteger state = new AtomicInteger(INSIDE);

	private final Thread worker = Thread.currentThread();

	private final LockHandle handle;

	// Written before TRIPPED is set and read after it is seen, so it needs no volatile.
	private boolean interrupted;

	private volatile @Nullable ScheduledFuture<?> alarm;

	private LeaseLossInterrupt(LockHandle handle) {
		this.handle = handle;
	}

	/**
	 * Start watching the calling thread's section under the given hold.
	 */
	static LeaseLossInterrupt enter(LockHandle handle) {
		LeaseLossInterrupt section = new LeaseLossInterrupt(handle);
		handle.whenLost().thenRunAsync(section::trip, Alarms.SCHEDULER);
		section.checkDeadline();
		return section;
	}

	/**
	 * End the section, on the thread that entered it.
	 * @return whether the section was interrupted because its lease was lost
	 */
	boolean leave() {
		cancelAlarm();
		if (this.state.compareAndSet(INSIDE, LEFT)) {
			return false;
		}
		while (this.state.get() == INTERRUPTING) {
			Thread.onSpinWait();
		}
		if (this.interrupted) {
			// The thread leaves the section as it entered it.
			Thread.interrupted();
		}
		return true;
	}

	private void trip() {
		if (!this.state.compareAndSet(INSIDE, INTERRUPTING)) {
			return;
		}
		try {
			if (!this.worker.isInterrupted()) {
				this.interrupted = true;
				this.worker.interrupt();
			}
		}
		finally {
			this.state.set(TRIPPED);
		}
	}

	private void checkDeadline() {
		if (this.state.get() != INSIDE) {
			return;
		}
		Duration left = this.handle.remainingLease();
		if (left.isZero()) {
			trip();
			return;
		}
		// Renewals push the deadline on: checked again then, about once a lease.
		this.alarm = Alarms.SCHEDULER.schedule(this::checkDeadline, left.toNanos(), TimeUnit.NANOSECONDS);
		if (this.state.get() != INSIDE) {
			// Left meanwhile, maybe before the alarm was set: don't keep it queued.
			cancelAlarm();
		}
	}

	private void cancelAlarm() {
		ScheduledFuture<?> current = this.alarm;
		if (current != null) {
			current.cancel(false);
		}
	}

	/**
	 * The thread of the interrupts, created when first used.
	 */
	private static final class Alarms {

		static final ScheduledThreadPoolExecutor SCHEDULER = create();

		private static ScheduledThreadPoolExecutor create() {
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
				Thread thread = new Thread(runnable, "distributed-lock-lease-alarm");
				thread.setDaemon(true);
				// Not the first caller's: it would keep an application's class loader.
				thread.setContextClassLoader(LeaseLossInterrupt.class.getClassLoader());
				return thread;
			});
			scheduler.setRemoveOnCancelPolicy(true);
			return scheduler;
		}

	}

}
