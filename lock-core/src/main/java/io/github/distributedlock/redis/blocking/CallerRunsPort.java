package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;

/**
 * The port of one blocking acquisition: its scripts are sent, and what their replies and
 * timers set off runs, on the caller's thread, which waits in {@link #runUntil}. On the
 * shared Lettuce connection scripts go out without blocking, each bounded by the command
 * timeout, so that no call waits on Redis past its wait time plus one command timeout; on
 * other connections (Jedis, a pool) they run as plain calls. Once the caller leaves
 * ({@link #detach}), the rest runs on the template's background thread. Thread-safe.
 */
final class CallerRunsPort implements LockPort {

	private final BlockingPort shared;

	private final @Nullable Duration commandTimeout;

	private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

	// Scripts sent whose reply (or failure) is not told yet.
	private int pending;

	private boolean detached;

	CallerRunsPort(BlockingPort shared) {
		this.shared = shared;
		this.commandTimeout = shared.commands().commandTimeout();
	}

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		return this.shared.schedule(() -> execute(task), delayNanos);
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Reply reply) {
		synchronized (this) {
			this.pending++;
		}
		// Sent from the caller's (or, once it left, the background) thread, never from a
		// message's or a reply's: getting a connection may block.
		execute(() -> send(name, operation, call, reply));
	}

	private void send(LockName name, String operation, ScriptCall call, Reply reply) {
		LockCommands commands = this.shared.commands();
		Duration timeout = this.commandTimeout;
		CompletableFuture<Object> sent;
		try {
			sent = (timeout != null) ? commands.sendForDriver(call) : null;
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				this.pending--;
			}
			reply.failed(failure(name, operation, ex));
			return;
		}
		if (sent == null || timeout == null) {
			synchronized (this) {
				this.pending--;
			}
			commands.runForDriver(name, operation, call, reply);
			return;
		}
		AtomicBoolean answered = new AtomicBoolean();
		Cancellable expiry = this.shared.schedule(() -> {
			if (answered.compareAndSet(false, true)) {
				answer(() -> reply.failed(failure(name, operation,
						new QueryTimeoutException("Redis command timed out after " + timeout))));
			}
		}, timeout.toNanos());
		sent.whenComplete((result, error) -> {
			if (!answered.compareAndSet(false, true)) {
				return;
			}
			expiry.cancel();
			answer(() -> {
				if (error != null) {
					reply.failed(failure(name, operation, error));
				}
				else {
					reply.replied(result);
				}
			});
		});
	}

	private void answer(Runnable told) {
		execute(() -> {
			synchronized (this) {
				this.pending--;
			}
			told.run();
		});
	}

	/**
	 * Translate a failure as a plain blocking call would report it.
	 */
	private static LockAccessException failure(LockName name, String operation, Throwable error) {
		Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
		DataAccessException translated = (cause instanceof DataAccessException spring) ? spring
				: new RedisSystemException(String.valueOf(cause.getMessage()), cause);
		return new LockAccessException(name, "Redis failed during " + operation + ": " + translated.getMessage(),
				translated);
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		return this.shared.listen(channels, listener);
	}

	/**
	 * Wake the caller, to look at what it waits for again.
	 */
	void wake() {
		execute(() -> {
		});
	}

	private void execute(Runnable task) {
		synchronized (this) {
			if (!this.detached) {
				this.tasks.add(task);
				notifyAll();
				return;
			}
		}
		this.shared.execute(task);
	}

	/**
	 * Run what comes on this thread until the condition holds, or the time runs out.
	 * @param nanos how long to wait at most, negative for indefinitely
	 * @return whether the condition holds
	 * @throws InterruptedException if interrupted while waiting (not running a task)
	 */
	boolean runUntil(Condition done, long nanos) throws InterruptedException {
		long until = System.nanoTime() + nanos;
		while (!done.holds()) {
			Runnable next = next(until, nanos < 0, done);
			if (next == null) {
				return done.holds();
			}
			next.run();
		}
		return true;
	}

	private synchronized @Nullable Runnable next(long until, boolean indefinitely, Condition done)
			throws InterruptedException {
		Runnable next = this.tasks.poll();
		while (next == null && !done.holds()) {
			long left = until - System.nanoTime();
			if (!indefinitely && left <= 0) {
				return null;
			}
			if (indefinitely) {
				wait();
			}
			else {
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			next = this.tasks.poll();
		}
		return next;
	}

	/**
	 * Leave: run here what the acquisition still does (a late reply, releasing an
	 * unwanted grant, a withdrawal) until no script of it awaits a reply, or until
	 * {@code untilNanos}; then hand the rest to the background thread.
	 * @param stay whether to run anything here: not after a Redis failure, so that a
	 * Redis that does not answer costs this thread no more commands' time
	 * @param untilNanos when to stop waiting for replies, on {@link System#nanoTime()}
	 */
	void detach(boolean stay, long untilNanos) {
		boolean interrupted = Thread.interrupted();
		try {
			while (stay) {
				Runnable next;
				try {
					next = next(untilNanos, false, this::settled);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					continue;
				}
				if (next == null) {
					break;
				}
				next.run();
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		List<Runnable> left;
		synchronized (this) {
			this.detached = true;
			left = List.copyOf(this.tasks);
			this.tasks.clear();
		}
		left.forEach(this.shared::execute);
	}

	private synchronized boolean settled() {
		return this.pending == 0 && this.tasks.isEmpty();
	}

	/**
	 * Return the command timeout, or {@code null} where scripts run on this thread.
	 */
	@Nullable Duration commandTimeout() {
		return this.commandTimeout;
	}

	@FunctionalInterface
	interface Condition {

		boolean holds();

	}

	@Override
	public String toString() {
		return "CallerRunsPort[" + (this.detached ? "detached" : "attached") + "]";
	}

}
