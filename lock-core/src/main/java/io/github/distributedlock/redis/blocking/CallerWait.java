package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.Completion;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of one blocking acquisition: it starts one of the driver's calls,
 * whose replies and timers drive it on their own threads, and waits for its settled end
 * ({@link Acquisitions.Call}); an interrupt becomes a cancel. Used once, by one thread.
 */
final class CallerWait<G> implements Completion<G> {

	/**
	 * How long past its wait time and one command timeout the caller waits for an
	 * acquisition that did not settle: only a lost timer needs it, since the wait time
	 * bounds every driver step, the command timeout every command, and the settle time
	 * what is left after the end.
	 */
	static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final LockName name;

	private final CompletableFuture<G> end = new CompletableFuture<>();

	private final long limitNanos;

	// Whether a run's scripts run as plain calls, whose last ones the caller stops
	// waiting for at an interrupt, as it would for its own calls.
	private final boolean plainCalls;

	/**
	 * @param waitNanos the acquisition's wait time, negative for indefinitely
	 * @param restarts whether the wait time restarts when the lock changes hands (a
	 * progress-aware wait): then only the acquisition's own deadline bounds it
	 * @throws LockInterruptedException if the thread is interrupted: then nothing is
	 * started
	 */
	CallerWait(BlockingPort port, LockName name, long waitNanos, boolean restarts) {
		LockCommands.refuseIfInterrupted(name);
		this.name = name;
		Duration timeout = port.commandTimeout();
		boolean bounded = waitNanos >= 0 && !restarts;
		this.plainCalls = timeout == null;
		// Past the wait time, only a command in flight keeps a run from ending: one
		// command timeout where known.
		this.limitNanos = bounded ? waitNanos + ((timeout != null) ? timeout.toNanos() : 0) + GRACE_NANOS : -1;
	}

	@Override
	public void granted(G won) {
		this.end.complete(won);
	}

	@Override
	public void failed(Throwable error) {
		this.end.completeExceptionally(error);
	}

	/**
	 * Start the acquisition and wait for its settled end.
	 * @throws RuntimeException what it failed with: a timeout, a failure naming the lock
	 * @throws LockInterruptedException if the thread was interrupted: the acquisition is
	 * cancelled
	 */
	G await(Acquisitions.Call<?, G> acquisition) {
		acquisition.start();
		try {
			return (this.limitNanos < 0) ? this.end.get() : this.end.get(this.limitNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			LockInterruptedException interrupted = new LockInterruptedException(this.name, ex);
			// Stopped, it fails with the interrupt once settled. Else it ended first: a
			// grant is the caller's, as nothing else would release it (a pass completes
			// on the releasing thread). The interrupt stays set.
			acquisition.cancel(interrupted);
			try {
				return awaitSettled(acquisition, interrupted);
			}
			finally {
				Thread.currentThread().interrupt();
			}
		}
		catch (TimeoutException ex) {
			LockAccessException lost = new LockAccessException(this.name,
					"the acquisition did not end within its wait time", null);
			acquisition.cancel(lost);
			return awaitSettled(acquisition, lost);
		}
		catch (ExecutionException ex) {
			throw failure(ex.getCause());
		}
	}

	/**
	 * Wait for the settled end of a run that ended or was cancelled, through interrupts,
	 * which stay set; only a pause of the thread that ends it takes long. With plain
	 * calls, an interrupt ends the wait for what the run has in flight.
	 */
	private G awaitSettled(Acquisitions.Call<?, G> acquisition, RuntimeException otherwise) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return this.end.get(GRACE_NANOS, TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					if (this.plainCalls) {
						acquisition.settleNow();
					}
				}
				catch (TimeoutException ex) {
					throw otherwise;
				}
				catch (ExecutionException ex) {
					throw failure(ex.getCause());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private RuntimeException failure(@Nullable Throwable error) {
		if (error instanceof RuntimeException runtime) {
			return runtime;
		}
		if (error instanceof Error fatal) {
			throw fatal;
		}
		return new LockAccessException(this.name, "the acquisition failed", error);
	}

}
