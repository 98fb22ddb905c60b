package io.github.distributedlock.redis.driver;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's port and completion, for a caller who hears of its end: the end is
 * told once the replies of what the run sent are told too (a late reply, the release of
 * an unwanted grant, a withdrawal), so that the caller finds Redis as its run left it. It
 * waits one settle time at most, and never past the call's bound (the wait time plus one
 * command timeout); a failure to reach Redis is told at once, so that a Redis that does
 * not answer costs one command timeout, not one per command. The rest goes on without the
 * caller. Thread-safe.
 *
 * @param <G> what a won acquisition gives
 */
public final class SettledRun<G> extends ForwardingPort implements Completion<G> {

	/**
	 * How long past its end a run may take to settle where the command timeout is
	 * unknown.
	 */
	public static final long UNKNOWN_TIMEOUT_SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final Completion<G> settled;

	private final long settleNanos;

	private final long boundAt;

	// The run whose reply this thread tells, if any.
	private static final ThreadLocal<@Nullable SettledRun<?>> TELLING = new ThreadLocal<>();

	// Guarded by this: the commands whose reply is not told yet; whether the run ended,
	// when, and its end while not told; the timer that bounds its settling.
	private int inFlight;

	private boolean ended;

	private long endedAt;

	private @Nullable Runnable end;

	private @Nullable Cancellable timer;

	/**
	 * @param settled told the run's end once it settled; {@code failed} with the cancel's
	 * error after {@link #cancelled}
	 * @param settleNanos how long past its end the run may take to settle
	 * @param callNanos the call's bound from now, in the port's clock, or a negative
	 * value for none
	 */
	public SettledRun(LockPort port, Completion<G> settled, long settleNanos, long callNanos) {
		super(port);
		this.settled = settled;
		this.settleNanos = settleNanos;
		this.boundAt = (callNanos < 0) ? Long.MAX_VALUE : port.nanoTime() + callNanos;
	}

	@Override
	public void granted(G won) {
		ended(() -> this.settled.granted(won), false);
	}

	@Override
	public void failed(Throwable error) {
		ended(() -> this.settled.failed(error), error instanceof LockAccessException);
	}

	/**
	 * Told that the caller cancelled the run before it ended: the cancel's error is told
	 * once the run settled.
	 */
	public void cancelled(Throwable error) {
		failed(error);
	}

	private void ended(Runnable told, boolean now) {
		synchronized (this) {
			if (this.ended) {
				return;
			}
			this.ended = true;
			this.endedAt = nanoTime();
			this.end = told;
			// Ended by a reply this thread tells (a grant, most often): that reply
			// settles
			// it, or sets the timer, once told, so that no timer is set and cancelled.
			if (!now && this.inFlight > 0 && (TELLING.get() == this || settleLater())) {
				return;
			}
		}
		settle();
	}

	/**
	 * Set the timer that tells the end at the latest one settle time after it, and never
	 * past the call's bound. Called with the lock.
	 * @return whether it is set; if not, the end is due now
	 */
	private boolean settleLater() {
		long now = nanoTime();
		long wait = Math.min(this.settleNanos - (now - this.endedAt), this.boundAt - now);
		if (wait <= 0) {
			return false;
		}
		this.timer = schedule(this::settle, wait);
		return true;
	}

	/**
	 * Tell the end now if the run ended, without waiting for what it still has in flight:
	 * its caller stops waiting for that.
	 */
	public void settleNow() {
		settle();
	}

	private void settle() {
		Runnable told;
		synchronized (this) {
			told = this.end;
			if (told == null) {
				return;
			}
			this.end = null;
			if (this.timer != null) {
				this.timer.cancel();
			}
		}
		told.run();
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		synchronized (this) {
			this.inFlight++;
		}
		// Counted down after the reply is told, so that what the reply sends counts
		// first.
		delegate().run(name, operation, call, Completion.of((result) -> answered(() -> reply.granted(result)),
				(error) -> answered(() -> reply.failed(error))));
	}

	private void answered(Runnable told) {
		SettledRun<?> outer = TELLING.get();
		TELLING.set(this);
		try {
			told.run();
		}
		finally {
			TELLING.set(outer);
			boolean due;
			synchronized (this) {
				this.inFlight--;
				due = this.end != null && (this.inFlight == 0 || (this.timer == null && !settleLater()));
			}
			if (due) {
				settle();
			}
		}
	}

}
