package io.github.distributedlock.redis.driver;

import java.util.List;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
import io.github.distributedlock.redis.core.MultiAcquisition;

import org.jspecify.annotations.Nullable;

/**
 * The driver of one {@link MultiAcquisition}: each attempt takes every lock or none.
 * Blocked, it watches the blocking lock's {@link LocalLine}, without joining it, and
 * tries them all again on a signal or when {@link MultiAcquisition#sleepNanos()} is over.
 * <p>
 * A cancel while waiting withdraws the request; the rest is {@link AcquisitionRun}'s.
 */
public final class AllLocksAcquisition extends AcquisitionRun<List<Grant>> {

	private final MultiAcquisition acquisition;

	private final Runnable watcher = () -> watched((joined) -> true, this::attempt);

	// The line's signal count read before the last attempt: a change calls for another.
	private long seen;

	public AllLocksAcquisition(MultiAcquisition acquisition, DriverCommands commands, LocalLines lines,
			Completion<List<Grant>> completion) {
		super(acquisition.specs().get(0).name(), commands, lines, completion,
				(grants) -> grants.forEach(commands::releaseUnused));
		this.acquisition = acquisition;
	}

	@Override
	public String hold() {
		return this.acquisition.hold();
	}

	@Override
	void begin() {
		attempt();
	}

	private void attempt() {
		attempt(null, this::next);
	}

	/**
	 * Count the next attempt and return what sends it. Called with the state lock.
	 */
	private Runnable next() {
		LocalLine joined = this.line;
		this.seen = (joined != null) ? joined.line().signals() : 0;
		long sentNanos = this.acquisition.next();
		return () -> this.commands.acquireAll(this.acquisition.specs(), this.acquisition.owner(),
				this.acquisition.hold(), this.acquisition.reentrant(), this.acquisition.request(),
				(result) -> replied(sentNanos, result), (error) -> {
					synchronized (this) {
						// It may have run, and filed the request wherever it was blocked.
						this.acquisition.unanswered();
					}
					// Undo it before the end withdraws the request.
					this.commands.undoAll(this.acquisition.specs(), this.acquisition.owner(), this.acquisition.hold(),
							error);
					failed(error);
				});
	}

	private void replied(long sentNanos, MultiAcquireResult result) {
		MultiAcquisition.Outcome outcome;
		boolean running;
		boolean retry;
		synchronized (this) {
			running = received();
			outcome = this.acquisition.replied(sentNanos, result);
			retry = this.acquisition.retriesLateGrant();
		}
		if (outcome instanceof MultiAcquisition.Granted granted) {
			if (!running) {
				// Cancelled while the attempt was in flight: nobody will release these.
				abandon(granted.grants());
			}
			else if (!granted.late()) {
				succeed(granted.grants());
			}
			else if (retry) {
				// Granted too late to use: again at once, with the same hold id.
				attempt(granted.grants(), this::next);
			}
			else {
				release(granted.grants());
				fail(this.acquisition.timeout());
			}
			return;
		}
		if (!running) {
			abandon(null);
		}
		else if (outcome instanceof MultiAcquisition.Failed error) {
			fail(error.error());
		}
		else if (outcome instanceof MultiAcquisition.Blocked blocked) {
			waitFor(blocked.spec());
		}
		else {
			fail(this.acquisition.timeout());
		}
	}

	/**
	 * Wait on the line of the lock that blocked the attempt, joining it if it is another
	 * lock's, and try again once it is subscribed, so that no release is missed.
	 */
	private void waitFor(LockSpec spec) {
		LocalLine joined;
		LocalLine left = null;
		synchronized (this) {
			if (!running()) {
				return;
			}
			LocalLine current = this.line;
			if (current != null && current.id().equals(spec.queueId())) {
				if (current.isClosed()) {
					joined = current;
				}
				else {
					sleepUntilSignalled(current);
					return;
				}
			}
			else {
				left = current;
				joined = this.lines.join(spec);
				this.line = joined;
				HandOffRequest request = this.acquisition.request();
				if (request != null) {
					joined.line().expect(request);
				}
				joined.watch(this.watcher);
				// Bounded: no waiting past the holder's lease for a subscription.
				sleep(this::attempt, this.acquisition.subscribeNanos());
			}
		}
		if (left != null) {
			leave(left);
		}
		if (joined.isClosed()) {
			closed();
			return;
		}
		joined.whenSubscribed(this::attempt);
	}

	/**
	 * Sleep until a signal, at most {@link MultiAcquisition#sleepNanos()}; one that came
	 * since the last attempt calls for another at once. Called with the state lock.
	 */
	private void sleepUntilSignalled(LocalLine current) {
		sleep(this::attempt, (current.line().signals() != this.seen) ? 0 : this.acquisition.sleepNanos());
	}

	@Override
	Runnable ended(boolean won, @Nullable LocalLine joined) {
		List<LockSpec> filed = List.copyOf(this.acquisition.filed());
		return () -> {
			if (joined != null) {
				leave(joined);
			}
			HandOffRequest request = this.acquisition.request();
			if (request != null && !won) {
				for (LockSpec spec : filed) {
					this.commands.withdraw(spec, request);
				}
			}
		};
	}

	private void leave(LocalLine joined) {
		joined.unwatch(this.watcher);
		HandOffRequest request = this.acquisition.request();
		if (request != null) {
			joined.line().forget(request);
		}
		this.lines.leave(joined);
	}

	@Override
	public String toString() {
		return "AllLocksAcquisition" + this.acquisition.specs().stream().map(LockSpec::name).toList();
	}

}
