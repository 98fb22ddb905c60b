package io.github.distributedlock.redis.driver;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LocalLine}s of a template, one per lock with waiters, each subscribed to its
 * lock's channels ({@link WaitMode}) through the {@link LockPort} while it has waiters,
 * plus a short linger so that a hot lock does not churn subscriptions. Thread-safe.
 */
public final class LocalLines implements CohortRelease {

	private static final Log logger = LogFactory.getLog(LocalLines.class);

	private final ConcurrentHashMap<String, LocalLine> lines = new ConcurrentHashMap<>();

	// Every acquisition started and not yet ended, waiting in a line or not: the close
	// fails them all.
	private final Set<AcquisitionRun<?>> running = ConcurrentHashMap.newKeySet();

	private final LockPort port;

	private final long lingerNanos;

	private final Cohorts cohorts;

	private volatile boolean closed;

	/**
	 * @param lingerNanos how long a line stays subscribed once nobody waits in it
	 * @param cohorts the template's cohorts, which its lines' heads may open
	 * (docs/design/cohorting.md)
	 */
	public LocalLines(LockPort port, long lingerNanos, Cohorts cohorts) {
		this.port = port;
		this.lingerNanos = lingerNanos;
		this.cohorts = cohorts;
	}

	/**
	 * Take a reference on the lock's line, subscribing its channel if it is new.
	 */
	LocalLine join(LockSpec spec) {
		LocalLine line = this.lines.compute(spec.queueId(), (id, existing) -> {
			LocalLine joined = (existing != null) ? existing
					: new LocalLine(id, this.port, spec.waitMode().keyspaceEvents(), spec.kind().waitsAsReader(),
							() -> this.cohorts.lost(spec.lockKey()));
			joined.references++;
			return joined;
		});
		if (!line.isClosed()) {
			subscribe(line, spec);
		}
		if (this.closed) {
			line.close();
		}
		return line;
	}

	/**
	 * Return the lock's line if subscribed here: waited for lately, so likely taken.
	 */
	@Nullable LocalLine hot(LockSpec spec) {
		LocalLine line = this.lines.get(spec.queueId());
		return (line != null && line.isSubscribed() && !line.isClosed()) ? line : null;
	}

	private void subscribe(LocalLine line, LockSpec spec) {
		if (!spec.waitMode().listens()) {
			// Nothing to hear: the waiters poll.
			if (!line.isSubscribed()) {
				line.subscribed();
			}
			return;
		}
		RuntimeException failed = null;
		synchronized (line) {
			if (line.hasSubscription()) {
				return;
			}
			// A subscription lost while being made is not kept, so that the next waiter
			// subscribes again; a loss reported meanwhile waits for this line's lock.
			boolean[] lost = new boolean[1];
			LockPort.Listener listener = new LockPort.Listener() {

				@Override
				public void subscribed() {
					line.subscribed();
				}

				@Override
				public void message(byte[] body) {
					line.onMessage(body);
				}

				@Override
				public void lost(Throwable error) {
					synchronized (line) {
						lost[0] = true;
					}
					LocalLines.lost(line, error, false);
				}

			};
			LockPort.Cancellable subscription = null;
			try {
				subscription = this.port.listen(spec.waitMode().channels(), listener);
			}
			catch (RuntimeException ex) {
				// The port cannot subscribe at all (its container destroyed, say): the
				// waiters are bounded as without messages; a later waiter tries again.
				// Told below, outside the line's lock, which a callback into an
				// acquisition must not hold (lock order: acquisition, then line).
				failed = ex;
			}
			if (subscription != null && lost[0]) {
				subscription.cancel();
			}
			else if (subscription != null) {
				line.subscription(subscription);
			}
		}
		if (failed != null) {
			lost(line, failed, true);
		}
	}

	private static void lost(LocalLine line, Throwable error, boolean refused) {
		logger.warn("Lost the subscription of " + line.id() + "; its waiters try again when the holder's lease ends",
				error);
		line.lostSubscription(refused);
	}

	/**
	 * Drop a reference; the line is removed once nobody was in it for the linger. One
	 * check per line stays scheduled, not a timer per leave, as on a hot lock the last
	 * waiter leaves once per acquisition.
	 */
	void leave(LocalLine line) {
		this.lines.computeIfPresent(line.id(), (id, existing) -> {
			if (existing != line) {
				return existing;
			}
			if (--existing.references == 0) {
				if (this.closed) {
					existing.unsubscribe();
					return null;
				}
				existing.lastLeftNanos = this.port.nanoTime();
				if (!existing.lingerCheckScheduled) {
					// Set once scheduled: a refused task leaves it to the next leave.
					checkLingerIn(existing, this.lingerNanos);
					existing.lingerCheckScheduled = true;
				}
			}
			return existing;
		});
	}

	private void checkLingerIn(LocalLine line, long delayNanos) {
		this.port.schedule(() -> endLinger(line), delayNanos);
	}

	/**
	 * Remove the line if nobody joined it since the linger started; check again at the
	 * end of the linger of whoever left last meanwhile.
	 */
	private void endLinger(LocalLine line) {
		this.lines.computeIfPresent(line.id(), (id, existing) -> {
			if (existing != line) {
				return existing;
			}
			if (existing.references > 0) {
				// The next one to leave starts the linger again.
				existing.lingerCheckScheduled = false;
				return existing;
			}
			long left = existing.lastLeftNanos + this.lingerNanos - this.port.nanoTime();
			if (left > 0 && !this.closed) {
				checkLingerIn(existing, left);
				return existing;
			}
			existing.unsubscribe();
			return null;
		});
	}

	/**
	 * End a cohort: the release of its holder's last local hold was answered or failed,
	 * its hold is gone with nobody holding it, or a re-entry took a new hold under its
	 * owner. No further pass, and the head of the line that opened it attempts. Called
	 * with no lock held (lock order: line, then the map, then the cohort).
	 */
	public void cohortEnded(String lockKey, Cohort ended) {
		this.cohorts.ended(lockKey, ended);
		LocalLine line = lineOf(ended);
		if (line != null) {
			line.cohortEnded(ended);
		}
	}

	/**
	 * Stop a cohort's passes and wake the head of its line, but keep it the lock's cohort
	 * while its holder has local holds under it, whose re-entries need its owner; forget
	 * it once it has none.
	 */
	public void stopPasses(String lockKey, Cohort stopped) {
		if (stopped.isUnheld()) {
			cohortEnded(lockKey, stopped);
			return;
		}
		stopped.end();
		LocalLine line = lineOf(stopped);
		if (line != null) {
			line.cohortEnded(stopped);
		}
	}

	/** Return the line whose head opened the cohort, if it is still there. */
	private @Nullable LocalLine lineOf(Cohort cohort) {
		String id = cohort.line();
		return (id != null) ? this.lines.get(id) : null;
	}

	@Override
	public @Nullable Runnable pass(Grant releasing, long minimumHoldLeftMillis) {
		Cohort cohort = releasing.cohort();
		if (cohort == null) {
			return null;
		}
		LocalLine line = lineOf(cohort);
		Runnable handOver = (line != null && line.cohort() == cohort)
				? line.pass(cohort, releasing, minimumHoldLeftMillis) : null;
		if (handOver != null) {
			this.cohorts.statistics().passed();
		}
		return handOver;
	}

	@Override
	public void ended(Grant grant) {
		Cohort cohort = grant.cohort();
		if (cohort != null) {
			this.cohorts.statistics().closed(cohort, this.port.nanoTime());
			cohortEnded(grant.spec().lockKey(), cohort);
		}
	}

	@Override
	public void lost(Grant grant) {
		Cohort cohort = grant.cohort();
		if (cohort != null) {
			stopPasses(grant.spec().lockKey(), cohort);
		}
	}

	/** Return the cohorts of the template's locks, which their lines tell of losses. */
	public Cohorts cohorts() {
		return this.cohorts;
	}

	/**
	 * Return how many acquisitions wait in a line: those already in it, not those still
	 * joining (subscribing), so that a caller that sees {@code n} knows that {@code n}
	 * waiters are in line.
	 */
	public int waiting() {
		return this.lines.values().stream().mapToInt(LocalLine::waiting).sum();
	}

	public int size() {
		return this.lines.size();
	}

	/**
	 * Return whether the template closed: no attempt goes out from then on.
	 */
	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Note that an acquisition starts, so that the close fails it.
	 * @return whether it may start: not once the close began
	 */
	boolean started(AcquisitionRun<?> run) {
		this.running.add(run);
		// Read after the add: a close that this misses iterates after the add.
		return !this.closed;
	}

	void ended(AcquisitionRun<?> run) {
		this.running.remove(run);
	}

	/**
	 * Fail every acquisition under way with {@code LockAccessException}, an attempt in
	 * flight or not (what it wins is released), and close every line: no attempt is sent
	 * from now on.
	 */
	public void close() {
		this.closed = true;
		// Closed first, so that a waiter promoted as a failing one leaves finds its line
		// closed, and fails, instead of trying.
		this.lines.values().forEach(LocalLine::markClosed);
		this.running.forEach(AcquisitionRun::closed);
		this.lines.values().forEach(LocalLine::close);
	}

}
