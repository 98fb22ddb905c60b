package io.github.distributedlock;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.section.InterruptibleSection;
import org.jspecify.annotations.Nullable;

/**
 * Interrupts the thread that runs a locked section when the section's lease is found lost
 * ({@link LockHandle#whenLost()}) or runs out ({@link LockHandle#remainingLease()}
 * reaches zero) while the thread is inside, and never once it has left. The interrupt and
 * the section's end race for one state, as {@link InterruptibleSection} describes.
 * <p>
 * Interrupts and deadline checks run on one daemon thread per JVM, started with the first
 * section that asks for them: not on the watchdog's thread, which renews every lease of a
 * template and may itself wait for a Redis that does not answer, and not there because an
 * interrupt may close the work's channels, which is I/O.
 */
final class LeaseLossInterrupt {

	private final InterruptibleSection section = new InterruptibleSection();

	private final LockHandle handle;

	private volatile @Nullable ScheduledFuture<?> alarm;

	private LeaseLossInterrupt(LockHandle handle) {
		this.handle = handle;
	}

	/**
	 * Start watching the calling thread's section under the given hold.
	 */
	static LeaseLossInterrupt enter(LockHandle handle) {
		LeaseLossInterrupt interrupt = new LeaseLossInterrupt(handle);
		handle.whenLost().thenRunAsync(interrupt.section::trip, Alarms.SCHEDULER);
		interrupt.checkDeadline();
		return interrupt;
	}

	/**
	 * End the section, on the thread that entered it.
	 * @return whether the section was interrupted because its lease was lost
	 */
	boolean leave() {
		cancelAlarm();
		return this.section.leave();
	}

	private void checkDeadline() {
		if (!this.section.isInside()) {
			return;
		}
		Duration left = this.handle.remainingLease();
		if (left.isZero()) {
			this.section.trip();
			return;
		}
		// Renewals push the deadline on: checked again then, about once a lease.
		this.alarm = Alarms.SCHEDULER.schedule(this::checkDeadline, left.toNanos(), TimeUnit.NANOSECONDS);
		if (!this.section.isInside()) {
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
