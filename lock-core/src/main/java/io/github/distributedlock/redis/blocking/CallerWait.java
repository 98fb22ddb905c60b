package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.Acquiring;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of one blocking acquisition: it starts one of the driver's runs on
 * the template's {@link BlockingPort}, whose replies and timers drive it on their own
 * threads, and waits for its completion; an interrupt becomes a cancel. As the run's
 * port, it counts the commands in flight, so that a caller that leaves waits for the last
 * replies (a release of an unwanted grant, a withdrawal) within its bound. Used once, by
 * one thread.
 */
final class CallerWait<G> extends BlockingPort.CallPort implements Completion<G> {

	/**
	 * How long past its wait time the caller waits for an acquisition that did not end:
	 * only a lost timer needs it, since the wait time bounds every driver step and the
	 * command timeout every command.
	 */
	static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final LockName name;

	// Guarded by this.
	private @Nullable G won;

	private @Nullable Throwable error;

	private boolean done;

	// Commands sent whose reply (or failure) is not told yet.
	private int inFlight;

	// With plain calls (Jedis, a pool): the run's scripts not yet run, which run one
	// after
	// another in the order sent, as one thread's calls would; and whether a thread runs
	// them.
	private final ArrayDeque<Runnable> plainCalls = new ArrayDeque<>();

	private boolean calling;

	/**
	 * @param name the lock its failures name
	 * @throws LockInterruptedException if the thread is interrupted: then nothing is
	 * started
	 */
	CallerWait(BlockingPort port, LockName name) {
		super(port);
		LockCommands.refuseIfInterrupted(name);
		this.name = name;
	}

	@Override
	public synchronized void granted(G won) {
		this.won = won;
		this.done = true;
		notifyAll();
	}

	@Override
	public synchronized void failed(Throwable error) {
		this.error = error;
		this.done = true;
		notifyAll();
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Reply reply) {
		synchronized (this) {
			this.inFlight++;
		}
		// Counted down after the reply is told, so that what the reply sends counts
		// first.
		Reply counted = Reply.of((result) -> answered(() -> reply.replied(result)),
				(failure) -> answered(() -> reply.failed(failure)));
		if (this.port.commandTimeout() != null) {
			this.port.run(name, operation, call, counted);
			return;
		}
		synchronized (this) {
			this.plainCalls.add(() -> this.port.commands().runForDriver(name, operation, call, counted));
			if (this.calling) {
				return;
			}
			this.calling = true;
		}
		this.port.call(this::runPlainCalls);
	}

	private void runPlainCalls() {
		while (true) {
			Runnable next;
			synchronized (this) {
				next = this.plainCalls.poll();
				if (next == null) {
					this.calling = false;
					return;
				}
			}
			try {
				next.run();
			}
			catch (RuntimeException | Error ex) {
				// A reply's own failure: the run's later calls still run.
			}
		}
	}

	private void answered(Runnable told) {
		try {
			told.run();
		}
		finally {
			synchronized (this) {
				this.inFlight--;
				notifyAll();
			}
		}
	}

	/**
	 * Start the acquisition and wait for its end.
	 * @param waitNanos the acquisition's wait time, negative for indefinitely
	 * @param restarts whether the wait time restarts when the lock changes hands (a
	 * progress-aware wait): then only the acquisition's own deadline bounds it
	 * @throws RuntimeException what it failed with: a timeout, a failure naming the lock
	 * @throws LockInterruptedException if the thread was interrupted: the acquisition is
	 * cancelled
	 */
	G await(Acquiring run, long waitNanos, boolean restarts) {
		long start = System.nanoTime();
		try {
			run.start();
			long bound = (waitNanos < 0 || restarts) ? -1 : waitNanos + GRACE_NANOS;
			if (!awaitEnd(bound) && (run.cancel() || !awaitEndUninterruptibly())) {
				failed(new LockAccessException(this.name, "the acquisition did not end within its wait time", null));
			}
		}
		catch (InterruptedException ex) {
			// Its end is waited for before the interrupt is set again.
			boolean ended = !run.cancel() && awaitEndUninterruptibly();
			Thread.currentThread().interrupt();
			if (!ended) {
				throw new LockInterruptedException(this.name, ex);
			}
			// It ended first: a grant is the caller's, as nothing else would release it
			// (a pass completes on the releasing thread). The interrupt stays set.
		}
		finally {
			leave(start, restarts ? -1 : waitNanos);
		}
		return result();
	}

	/**
	 * Wait until the acquisition ended.
	 * @param nanos how long at most, negative for indefinitely
	 * @return whether it ended
	 */
	private synchronized boolean awaitEnd(long nanos) throws InterruptedException {
		long until = System.nanoTime() + nanos;
		while (!this.done) {
			long left = until - System.nanoTime();
			if (nanos < 0) {
				wait();
			}
			else if (left > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			else {
				return false;
			}
		}
		return true;
	}

	/**
	 * Wait for the completion of an acquisition that ended, which its ending thread makes
	 * as soon as it leaves the run's state lock: only a pause of that thread takes long.
	 */
	private boolean awaitEndUninterruptibly() {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return awaitEnd(GRACE_NANOS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Wait for the replies of what the acquisition still sent (a late reply, the release
	 * of an unwanted grant, a withdrawal), for one command timeout but no later than the
	 * wait time plus one command timeout; with plain calls, until they ran, as the
	 * caller's own calls would, for at most {@link #GRACE_NANOS} and not past an
	 * interrupt. Not after a Redis failure, so that a Redis that does not answer costs
	 * one command timeout, not one per command, nor when the caller gave up on a run that
	 * did not end. The rest goes on without the caller.
	 */
	private void leave(long start, long waitNanos) {
		Duration timeout = this.port.commandTimeout();
		synchronized (this) {
			if (this.error instanceof LockAccessException) {
				return;
			}
		}
		long now = System.nanoTime();
		long until = now + ((timeout != null) ? timeout.toNanos() : GRACE_NANOS);
		if (waitNanos >= 0 && timeout != null) {
			long budget = start + waitNanos + timeout.toNanos();
			until = (budget - until < 0) ? budget : until;
		}
		boolean interrupted = Thread.interrupted();
		try {
			synchronized (this) {
				while (this.inFlight > 0) {
					long left = until - System.nanoTime();
					if (left <= 0) {
						break;
					}
					try {
						TimeUnit.NANOSECONDS.timedWait(this, left);
					}
					catch (InterruptedException ex) {
						interrupted = true;
						if (timeout == null) {
							break;
						}
					}
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private synchronized G result() {
		Throwable failure = this.error;
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error fatal) {
			throw fatal;
		}
		if (failure != null) {
			throw new LockAccessException(this.name, "the acquisition failed", failure);
		}
		G result = this.won;
		if (result == null) {
			throw new IllegalStateException("Lock '" + this.name + "': the acquisition ended with nothing");
		}
		return result;
	}

}
