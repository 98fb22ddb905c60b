package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.Acquiring;
import io.github.distributedlock.redis.driver.Completion;
import org.jspecify.annotations.Nullable;

/**
 * Runs one of the driver's acquisitions on the caller's thread, through its
 * {@link CallerRunsPort}, and waits for its end; an interrupt becomes a cancel. Used
 * once, by one thread.
 */
final class CallerWait<G> implements Completion<G> {

	/**
	 * How long past its wait time the caller waits for an acquisition that did not end:
	 * only a lost timer needs it, since the wait time bounds every driver step and the
	 * command timeout every command.
	 */
	static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

	/**
	 * How long a caller whose cancel came after its acquisition ended waits for the
	 * ending thread to complete it: that thread does so as soon as it leaves the state
	 * lock, so only a pause of that thread (a collection, an overloaded machine) takes
	 * long.
	 */
	private static final long END_HEARD_NANOS = GRACE_NANOS;

	private final CallerRunsPort port;

	private volatile @Nullable G won;

	private volatile @Nullable Throwable error;

	private volatile boolean done;

	CallerWait(CallerRunsPort port) {
		this.port = port;
	}

	@Override
	public void granted(G won) {
		this.won = won;
		this.done = true;
		this.port.wake();
	}

	@Override
	public void failed(Throwable error) {
		this.error = error;
		this.done = true;
		this.port.wake();
	}

	/**
	 * Return until when the leaving caller waits for its acquisition's last replies: one
	 * command timeout, but no later than the wait time plus one command timeout. Where
	 * scripts run on this thread, only what is queued runs.
	 */
	private long leaveBy(long start, long waitNanos) {
		long now = System.nanoTime();
		Duration timeout = this.port.commandTimeout();
		if (timeout == null) {
			return now;
		}
		long leave = now + timeout.toNanos();
		if (waitNanos >= 0) {
			long budget = start + waitNanos + timeout.toNanos();
			leave = (budget - leave < 0) ? budget : leave;
		}
		return leave;
	}

	/**
	 * Start the acquisition and wait for its end.
	 * @param waitNanos the acquisition's wait time, negative for indefinitely
	 * @param restarts whether the wait time restarts when the lock changes hands (a
	 * progress-aware wait): then only the acquisition's own deadline bounds it
	 * @throws RuntimeException what it failed with: a timeout, a failure naming the lock
	 * @throws LockInterruptedException if the thread was interrupted (before the start,
	 * too): the acquisition is cancelled
	 */
	G await(Acquiring run, LockName name, long waitNanos, boolean restarts) {
		LockCommands.refuseIfInterrupted(name);
		long start = System.nanoTime();
		try {
			run.start();
			long bound = (waitNanos < 0 || restarts) ? -1 : waitNanos + GRACE_NANOS;
			if (!this.port.runUntil(() -> this.done, bound) && (run.cancel() || !endHeard())) {
				throw new LockAccessException(name, "the acquisition did not end within its wait time", null);
			}
		}
		catch (InterruptedException ex) {
			// Waited for before the interrupt is set again, which would cut the wait
			// short.
			boolean ended = !run.cancel() && endHeard();
			Thread.currentThread().interrupt();
			if (!ended) {
				throw new LockInterruptedException(name, ex);
			}
			// It ended first: a grant is the caller's, as nothing else would release it
			// (a pass completes on the releasing thread). The interrupt stays set.
		}
		finally {
			// After a Redis failure nothing more is waited for: a Redis that does not
			// answer costs one command timeout, not one per command.
			this.port.detach(!(this.error instanceof LockAccessException), leaveBy(start, restarts ? -1 : waitNanos));
		}
		return result(name);
	}

	/**
	 * Wait for the completion of an acquisition that ended, which its ending thread is
	 * about to make, if it is not made yet.
	 * @return whether it came
	 */
	private boolean endHeard() {
		long end = System.nanoTime() + END_HEARD_NANOS;
		while (!this.done && System.nanoTime() - end < 0) {
			LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(10));
		}
		return this.done;
	}

	private G result(LockName name) {
		Throwable failure = this.error;
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error fatal) {
			throw fatal;
		}
		if (failure != null) {
			throw new LockAccessException(name, "the acquisition failed", failure);
		}
		G result = this.won;
		if (result == null) {
			throw new IllegalStateException("Lock '" + name + "': the acquisition ended with nothing");
		}
		return result;
	}

}
