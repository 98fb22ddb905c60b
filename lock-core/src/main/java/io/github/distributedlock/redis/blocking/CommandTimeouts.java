package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.redis.driver.LockPort;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The command timeouts of the scripts in flight. Every script waits the same timeout, so
 * their deadlines come in the order they were sent, and one timer task at the earliest
 * deadline ends every script whose timeout passed, then waits for the next. A send sets a
 * timer only when none is set: the timer's thread wakes about once per command timeout
 * while scripts go out, where a timer per script woke it at every send (the one that
 * becomes the first due wakes the thread). Thread-safe.
 */
final class CommandTimeouts {

	private static final Log logger = LogFactory.getLog(CommandTimeouts.class);

	private final ScheduledExecutorService timer;

	private final long timeoutNanos;

	private final ConcurrentLinkedQueue<Expiry> inFlight = new ConcurrentLinkedQueue<>();

	/**
	 * Whether a task is set to look at the scripts in flight; cleared only by that task.
	 */
	private final AtomicBoolean set = new AtomicBoolean();

	CommandTimeouts(ScheduledExecutorService timer, Duration timeout) {
		this.timer = timer;
		this.timeoutNanos = timeout.toNanos();
	}

	/**
	 * Start one script's timeout, counted from now.
	 * @param expired what runs on the timer's thread if the timeout passes before the
	 * returned handle is cancelled
	 * @return the handle that ends the timeout, once the script's answer came
	 */
	LockPort.Cancellable start(Runnable expired) {
		Expiry expiry = new Expiry(System.nanoTime() + this.timeoutNanos, expired);
		this.inFlight.add(expiry);
		if (this.set.compareAndSet(false, true)) {
			setTimer(this.timeoutNanos);
		}
		return expiry;
	}

	private void setTimer(long delayNanos) {
		try {
			this.timer.schedule(this::expire, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the scripts sent before still end at their timeout.
			Thread waiting = new Thread(() -> {
				LockSupport.parkNanos(delayNanos);
				expire();
			}, "distributed-lock-closed");
			waiting.setDaemon(true);
			waiting.start();
		}
	}

	/**
	 * End every script whose timeout passed, and set the timer for the next deadline; or,
	 * with none left, clear the flag, unless a script came meanwhile.
	 */
	private void expire() {
		while (true) {
			long now = System.nanoTime();
			long next = 0;
			boolean waiting = false;
			for (Iterator<Expiry> scripts = this.inFlight.iterator(); scripts.hasNext();) {
				Expiry expiry = scripts.next();
				if (expiry.ended) {
					scripts.remove();
				}
				else if (expiry.deadline - now <= 0) {
					scripts.remove();
					expiry.expire();
				}
				else if (!waiting || expiry.deadline - next < 0) {
					next = expiry.deadline;
					waiting = true;
				}
			}
			if (waiting) {
				setTimer(next - now);
				return;
			}
			this.set.set(false);
			// A send that found the flag still set added its script before this.
			if (this.inFlight.isEmpty() || !this.set.compareAndSet(false, true)) {
				return;
			}
		}
	}

	private final class Expiry implements LockPort.Cancellable {

		private final long deadline;

		private final Runnable expired;

		private volatile boolean ended;

		Expiry(long deadline, Runnable expired) {
			this.deadline = deadline;
			this.expired = expired;
		}

		@Override
		public void cancel() {
			this.ended = true;
			// Replies come in the order sent, so this is usually the first in flight.
			CommandTimeouts.this.inFlight.remove(this);
		}

		void expire() {
			if (this.ended) {
				return;
			}
			this.ended = true;
			try {
				this.expired.run();
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				// The other scripts' timeouts still come: the timer task must go on.
				logger.warn("A command timeout's failure could not be told", ex);
			}
		}

	}

}
