package io.github.distributedlock.observation;

import java.util.List;
import java.util.stream.Collectors;

import io.github.distributedlock.AcquiredLock;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockContext;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Observation.Context} of one locked execution: the locks requested, and once
 * known whether they were acquired ({@link #getAcquiredLock()}), by the blocking engine
 * ({@link #getLock()}) or the reactive one ({@link #getReactiveLock()}).
 */
public class LockObservationContext extends Observation.Context {

	private final List<LockRequest> requests;

	private volatile @Nullable AcquiredLock lock;

	private volatile Outcome outcome = Outcome.UNKNOWN;

	/**
	 * Create a context for the given requests.
	 * @param requests the locks requested, at least one
	 */
	public LockObservationContext(List<LockRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("At least one lock request is needed");
		}
		this.requests = List.copyOf(requests);
	}

	/**
	 * Return the requests.
	 * @return the requests, at least one
	 */
	public List<LockRequest> getRequests() {
		return this.requests;
	}

	/**
	 * Return the names of the locks requested.
	 * @return the lock names
	 */
	public List<LockName> getLockNames() {
		return this.requests.stream().map(LockRequest::name).toList();
	}

	/**
	 * Return the scope of the requested locks; distinct scopes of a multi-lock are joined
	 * with commas, in order.
	 * @return the scope
	 */
	public String getScope() {
		return this.requests.stream()
			.map((request) -> request.name().scope())
			.distinct()
			.collect(Collectors.joining(","));
	}

	/**
	 * Return where the locks were requested, from the first request's origin.
	 * @return the origin, or {@code null}
	 */
	public @Nullable String getOrigin() {
		return this.requests.get(0).origin();
	}

	/**
	 * Return the hold, once the locks were acquired by either template: what a convention
	 * reads when it does not matter which.
	 * @return the hold, or {@code null}
	 */
	public @Nullable AcquiredLock getAcquiredLock() {
		return this.lock;
	}

	/**
	 * Return the hold, once the locks were acquired by a blocking template.
	 * @return the hold, or {@code null}
	 */
	public @Nullable LockContext getLock() {
		return (this.lock instanceof LockContext blocking) ? blocking : null;
	}

	/**
	 * Return the reactive hold, once the lock was acquired by a reactive template.
	 * @return the hold, or {@code null}
	 */
	public @Nullable ReactiveLockContext getReactiveLock() {
		return (this.lock instanceof ReactiveLockContext reactive) ? reactive : null;
	}

	/**
	 * Return how the acquisition went, so far.
	 * @return the outcome
	 */
	public Outcome getOutcome() {
		return this.outcome;
	}

	void acquired(AcquiredLock lock) {
		this.lock = lock;
		this.outcome = Outcome.ACQUIRED;
	}

	void failed(Throwable ex) {
		if (this.outcome != Outcome.ACQUIRED) {
			this.outcome = (ex instanceof LockTimeoutException) ? Outcome.TIMED_OUT : Outcome.FAILED;
		}
	}

	/**
	 * How the acquisition of the locks went.
	 */
	public enum Outcome {

		/**
		 * Not known yet: the observation has started and the locks are being acquired.
		 * Long task timers ({@code distributed.lock.active}) keep this value, since they
		 * take their tags when the observation starts.
		 */
		UNKNOWN,

		/**
		 * The locks were acquired and the work ran (whether or not it succeeded).
		 */
		ACQUIRED,

		/**
		 * The locks were not acquired within the wait time.
		 */
		TIMED_OUT,

		/**
		 * Acquiring failed otherwise: Redis unreachable, interrupted, self-deadlock.
		 */
		FAILED

	}

}
