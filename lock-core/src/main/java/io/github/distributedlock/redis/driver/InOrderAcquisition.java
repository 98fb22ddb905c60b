package io.github.distributedlock.redis.driver;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import org.jspecify.annotations.Nullable;

/**
 * A multi-lock that no one script can take (on a Cluster, keys in several hash slots):
 * its locks are taken one by one, in the given (global) order, within one wait time. Each
 * lock is held as soon as it is taken, so that it stays held (renewed, if the watchdog
 * renews it) while the next is waited for. Written once for both templates.
 * <p>
 * A lock whose lease ran out or was lost while a later one was waited for (an explicit
 * lease shorter than that wait; a renewal that Redis did not answer in time) is no longer
 * the caller's: then every lock taken is released and the locks are taken again from the
 * first, within the wait time left, as a single lock's grant that comes after its lease
 * is tried again. So a granted multi-lock holds every lock.
 * <p>
 * The whole call ends within its wait time plus one command timeout, as a single lock's
 * does: each lock waits only for what is left of the wait time, and if the bound comes
 * while an attempt is still in flight (a slow Redis), the acquisition is cancelled, and
 * that attempt's grant, if any, released when its reply comes. On every failure or
 * cancel, the locks taken are released without waiting for Redis. Thread-safe.
 *
 * @param <H> a held lock, as the template holds it
 */
public final class InOrderAcquisition<H> implements Acquiring {

	/**
	 * What the template does for each lock.
	 */
	public interface Steps<H> {

		/**
		 * Return, unstarted, the acquisition of one lock, with the wait time left.
		 */
		Acquiring acquire(LockSpec spec, Completion<Grant> completion);

		/**
		 * Hold what one lock's acquisition won.
		 * @throws RuntimeException if it cannot be held (the grant is then released)
		 */
		H hold(Grant grant);

		/**
		 * Release a held lock without waiting for Redis, and without keeping it for its
		 * minimum hold: the caller never had it.
		 */
		void release(H held);

		/**
		 * Return whether a held lock is still the caller's: not lost, and its lease not
		 * over by the local clock.
		 */
		boolean isLive(H held);

	}

	private final List<LockSpec> specs;

	private final Steps<H> steps;

	private final LockPort port;

	private final Deadline deadline;

	private final boolean bounded;

	private final long boundNanos;

	private final Completion<List<H>> completion;

	// Guarded by this.
	private final List<H> taken;

	private @Nullable Acquiring current;

	private boolean ended;

	private boolean cancelled;

	// The bound came: no lock is tried after this.
	private boolean overdue;

	private LockPort.@Nullable Cancellable bound;

	/**
	 * @param specs the locks, in the order to take them
	 * @param waitNanos the wait time of them all, negative for indefinitely
	 * @param startNanos when the call began, on the port's clock
	 * @param commandTimeoutNanos the command timeout, or a negative value for no bound
	 * beyond each command's own timeout (unknown, or a wait that restarts on progress)
	 */
	public InOrderAcquisition(List<LockSpec> specs, long waitNanos, long startNanos, long commandTimeoutNanos,
			LockPort port, Steps<H> steps, Completion<List<H>> completion) {
		this.specs = List.copyOf(specs);
		this.steps = steps;
		this.port = port;
		this.deadline = new Deadline(port, waitNanos, startNanos);
		this.bounded = waitNanos >= 0 && commandTimeoutNanos >= 0;
		this.boundNanos = this.bounded ? startNanos + waitNanos + commandTimeoutNanos : 0;
		this.completion = completion;
		this.taken = new ArrayList<>(specs.size());
	}

	@Override
	public void start() {
		if (this.bounded) {
			LockPort.Cancellable timer = this.port.schedule(this::overBound, this.boundNanos - this.port.nanoTime());
			synchronized (this) {
				this.bound = timer;
			}
		}
		next();
	}

	private void next() {
		Acquiring step = null;
		List<H> won = null;
		List<H> lapsed = List.of();
		RuntimeException refused = null;
		int index;
		synchronized (this) {
			if (this.ended) {
				return;
			}
			if (!this.taken.stream().allMatch(this.steps::isLive)) {
				// Taken again from the first lock.
				lapsed = drainTaken();
			}
			index = this.taken.size();
			if (index == this.specs.size()) {
				this.ended = true;
				cancelBound();
				won = List.copyOf(this.taken);
			}
			else if (!this.overdue) {
				LockSpec spec = this.specs.get(index);
				try {
					step = this.steps.acquire(spec.withWaitNanos(this.deadline.remainingBudgetNanos()),
							Completion.of(this::granted, this::failed));
				}
				catch (RuntimeException ex) {
					refused = ex;
				}
				this.current = step;
			}
		}
		releaseAll(lapsed);
		if (won != null) {
			this.completion.granted(won);
		}
		else if (step == null) {
			end((refused != null) ? refused : tooSlow(index));
		}
		else {
			try {
				step.start();
			}
			catch (RuntimeException ex) {
				step.cancel();
				end(ex);
			}
		}
	}

	private void granted(Grant grant) {
		H held;
		try {
			held = this.steps.hold(grant);
		}
		catch (RuntimeException ex) {
			end(ex);
			return;
		}
		boolean late;
		synchronized (this) {
			late = this.ended;
			if (!late) {
				this.taken.add(held);
			}
		}
		if (late) {
			this.steps.release(held);
		}
		else {
			next();
		}
	}

	private void failed(Throwable error) {
		if (error instanceof LockTimeoutException timeout) {
			// Timed from the start of the multi-lock, not of this lock.
			end(timeout.afterWaiting(this.deadline.elapsed()));
		}
		else {
			end(error);
		}
	}

	/**
	 * The call's bound came: stop the lock being taken. If it had just ended, what ends
	 * it next ({@link #next}, {@link #failed}) sees the bound.
	 */
	private void overBound() {
		Acquiring step;
		int index;
		synchronized (this) {
			if (this.ended) {
				return;
			}
			this.overdue = true;
			step = this.current;
			index = this.taken.size();
		}
		if (step != null && step.cancel()) {
			end(tooSlow(index));
		}
	}

	private LockAccessException tooSlow(int index) {
		LockSpec spec = this.specs.get(Math.min(index, this.specs.size() - 1));
		return new LockAccessException(spec.name(),
				"Redis answered too slowly to take every lock within the wait "
						+ "time plus one command timeout: gave up after " + this.deadline.elapsed().toMillis()
						+ " ms, and released what was taken",
				null);
	}

	/**
	 * Stop: release what was taken, and tell the completion nothing.
	 * @return whether it stopped a running acquisition
	 */
	@Override
	public boolean cancel() {
		Acquiring step;
		List<H> release;
		synchronized (this) {
			if (this.ended) {
				return this.cancelled;
			}
			this.ended = true;
			this.cancelled = true;
			cancelBound();
			step = this.current;
			release = drainTaken();
		}
		if (step != null) {
			step.cancel();
		}
		releaseAll(release);
		return true;
	}

	private void end(Throwable error) {
		List<H> release;
		synchronized (this) {
			if (this.ended) {
				return;
			}
			this.ended = true;
			cancelBound();
			release = drainTaken();
		}
		releaseAll(release);
		this.completion.failed(error);
	}

	private List<H> drainTaken() {
		List<H> drained = List.copyOf(this.taken);
		this.taken.clear();
		return drained;
	}

	private void releaseAll(List<H> held) {
		for (int i = held.size() - 1; i >= 0; i--) {
			this.steps.release(held.get(i));
		}
	}

	private void cancelBound() {
		LockPort.Cancellable timer = this.bound;
		this.bound = null;
		if (timer != null) {
			timer.cancel();
		}
	}

}
