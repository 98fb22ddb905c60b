package io.github.distributedlock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An immutable description of the lock to take and how. Settings left unset
 * ({@code null}) come from the {@link LockDefaults} of the {@link LockTemplate} (in
 * Spring Boot, from {@code distributed-lock.*} properties). <pre class="code">
 * LockRequest request = LockRequest.builder("server_access").key(serverId)
 *         .lease(Duration.ofSeconds(10))
 *         .waitTime(Duration.ofSeconds(2))
 *         .build();
 * </pre> Build requests with {@link #builder(String)}: the canonical constructor
 * validates the same way, but gains a parameter whenever a setting is added.
 *
 * @param name the lock
 * @param lease how long the lock stays ours if never released
 * @param waitTime how long to wait for the lock while it is taken
 * @param waitStrategy how waiters learn that the lock may be free
 * @param reentrant whether the thread that holds the lock may take it again
 * @param progressAwareTimeout whether the wait time restarts when the lock changes hands
 * @param origin where the lock is requested, for example {@code DeployService.deploy},
 * shown to operators next to the hold, or {@code null}
 * @param owner the owner that holds the lock instead of the thread, or {@code null}
 * @param autoRenew whether the watchdog renews the lease while the lock is held; unset
 * means "renewed when no lease is given"
 * @param mode whether the lock is taken alone or shared with readers
 * @param permits the number of permits of the semaphore asked for, or 0 for a lock
 * @param fair whether waiters get the lock in arrival order, across processes
 * @param holdAtLeast how long the lock stays taken at least, counted from its acquisition
 * (see {@link Builder#holdAtLeast(Duration)}), or {@code null} for none
 * @param onLeaseLost what happens to the work under the lock when its lease is found lost
 * before the work ends, {@link LeaseLossPolicy#CONTINUE} unless set
 */
public record LockRequest(LockName name, @Nullable Duration lease, @Nullable Duration waitTime,
		@Nullable WaitStrategy waitStrategy, @Nullable Boolean reentrant, @Nullable Boolean progressAwareTimeout,
		@Nullable String origin, @Nullable String owner, @Nullable Boolean autoRenew, LockMode mode, int permits,
		boolean fair, @Nullable Duration holdAtLeast, LeaseLossPolicy onLeaseLost) {

	/**
	 * A wait time that means "wait until the lock is ours or the thread is interrupted".
	 */
	public static final Duration WAIT_INDEFINITELY = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

	private static final int MAX_OWNER_LENGTH = 256;

	/**
	 * The longest lease accepted: far beyond any sensible lease, and well inside what
	 * Redis can store as an expiry.
	 */
	public static final Duration MAX_LEASE = Duration.ofDays(365);

	public LockRequest {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(mode, "mode must not be null");
		Objects.requireNonNull(onLeaseLost, "onLeaseLost must not be null");
		if (fair && (permits > 0 || mode == LockMode.READ)) {
			throw invalid(name, "only exclusive (write) locks can be fair, not read locks or permits");
		}
		if (permits < 0) {
			throw invalid(name, "permits must be at least 1, but was " + permits);
		}
		if (permits > 0 && mode == LockMode.READ) {
			throw invalid(name, "a semaphore (permits) has no read mode");
		}
		if (owner != null && (owner.isBlank() || owner.length() > MAX_OWNER_LENGTH)) {
			throw invalid(name, "a custom owner must be non-blank and at most " + MAX_OWNER_LENGTH + " characters");
		}
		if (lease != null && !isValidLease(lease)) {
			throw invalid(name, "lease must be between 1 ms and " + MAX_LEASE.toDays() + " days, but was " + lease);
		}
		if (waitTime != null && waitTime.isNegative()) {
			throw invalid(name, "wait time must not be negative, but was " + waitTime);
		}
		if (holdAtLeast != null && holdAtLeast.isNegative()) {
			throw invalid(name, "minimum hold must not be negative, but was " + holdAtLeast);
		}
		if (holdAtLeast != null && holdAtLeast.compareTo(MAX_LEASE) > 0) {
			throw invalid(name, "minimum hold must be at most " + MAX_LEASE.toDays() + " days, but was " + holdAtLeast);
		}
		if (holdAtLeast != null && lease != null && holdAtLeast.compareTo(lease) > 0) {
			throw invalid(name, "minimum hold " + holdAtLeast + " is longer than the lease " + lease
					+ "; the lease caps how long the lock stays taken, so give a lease of at least the minimum hold");
		}
	}

	private static IllegalArgumentException invalid(LockName name, String problem) {
		return new IllegalArgumentException("Lock '" + name + "': " + problem);
	}

	/**
	 * Return whether a lease is one Redis can keep: at least 1 ms and at most
	 * {@link #MAX_LEASE}.
	 * @param lease the lease
	 * @return whether it is valid
	 */
	public static boolean isValidLease(Duration lease) {
		return lease.compareTo(Duration.ofMillis(1)) >= 0 && lease.compareTo(MAX_LEASE) <= 0;
	}

	/**
	 * Create a request for {@code scope:key} with every setting from the defaults.
	 * @param scope the scope
	 * @param key the key within the scope, or {@code null} to lock the whole scope
	 * @return the request
	 */
	public static LockRequest of(String scope, @Nullable String key) {
		return builder(scope).key(key).build();
	}

	/**
	 * Start building a request for a lock in the given scope.
	 * @param scope the scope, for example {@code "server_access"}
	 * @return a builder
	 */
	public static Builder builder(String scope) {
		return new Builder(scope);
	}

	/**
	 * Return a builder that starts from this request's settings.
	 * @return a builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder(this.name.scope()).key(this.name.key());
		builder.lease = this.lease;
		builder.waitTime = this.waitTime;
		builder.waitStrategy = this.waitStrategy;
		builder.reentrant = this.reentrant;
		builder.progressAwareTimeout = this.progressAwareTimeout;
		builder.origin = this.origin;
		builder.owner = this.owner;
		builder.autoRenew = this.autoRenew;
		builder.mode = this.mode;
		builder.permits = this.permits;
		builder.fair = this.fair;
		builder.holdAtLeast = this.holdAtLeast;
		builder.onLeaseLost = this.onLeaseLost;
		return builder;
	}

	/**
	 * Describe the request; a custom owner shows as {@code (custom)}, never in full.
	 */
	@Override
	public String toString() {
		return "LockRequest[" + this.name + ", lease=" + this.lease + ", waitTime=" + this.waitTime + ", waitStrategy="
				+ this.waitStrategy + ", reentrant=" + this.reentrant + ", progressAwareTimeout="
				+ this.progressAwareTimeout + ", origin=" + this.origin + ", owner="
				+ ((this.owner != null) ? "(custom)" : null) + ", autoRenew=" + this.autoRenew + ", mode=" + this.mode
				+ ", permits=" + this.permits + ", fair=" + this.fair + ", holdAtLeast=" + this.holdAtLeast
				+ ", onLeaseLost=" + this.onLeaseLost + "]";
	}

	/**
	 * Builder for {@link LockRequest}. Not thread-safe.
	 */
	public static final class Builder {

		private final String scope;

		private @Nullable String key;

		private @Nullable Duration lease;

		private @Nullable Duration waitTime;

		private @Nullable WaitStrategy waitStrategy;

		private @Nullable Boolean reentrant;

		private @Nullable Boolean progressAwareTimeout;

		private @Nullable String origin;

		private @Nullable String owner;

		private @Nullable Boolean autoRenew;

		private LockMode mode = LockMode.EXCLUSIVE;

		private int permits;

		private boolean fair;

		private @Nullable Duration holdAtLeast;

		private LeaseLossPolicy onLeaseLost = LeaseLossPolicy.CONTINUE;

		private Builder(String scope) {
			this.scope = Objects.requireNonNull(scope, "scope must not be null");
		}

		/**
		 * Set the key within the scope.
		 * @param key the key, or {@code null} to lock the whole scope
		 * @return this builder
		 */
		public Builder key(@Nullable String key) {
			this.key = key;
			return this;
		}

		/**
		 * Set how long the lock stays ours if we never release it, for example because
		 * the process died.
		 * @param lease the lease, at least 1 ms
		 * @return this builder
		 */
		public Builder lease(Duration lease) {
			this.lease = Objects.requireNonNull(lease, "lease must not be null");
			return this;
		}

		/**
		 * Set how long to wait for a lock that is taken. Zero means try once.
		 * @param waitTime the wait time, not negative
		 * @return this builder
		 * @see #waitIndefinitely()
		 */
		public Builder waitTime(Duration waitTime) {
			this.waitTime = Objects.requireNonNull(waitTime, "waitTime must not be null");
			return this;
		}

		/**
		 * Wait until the lock is ours, however long it takes (or until interrupted).
		 * @return this builder
		 */
		public Builder waitIndefinitely() {
			this.waitTime = WAIT_INDEFINITELY;
			return this;
		}

		/**
		 * Set how waiters learn that the lock may be free.
		 * @param waitStrategy the wait strategy
		 * @return this builder
		 */
		public Builder waitStrategy(WaitStrategy waitStrategy) {
			this.waitStrategy = Objects.requireNonNull(waitStrategy, "waitStrategy must not be null");
			return this;
		}

		/**
		 * Set whether the thread that holds the lock may take it again. When not
		 * reentrant, taking it again fails at once with
		 * {@link LockSelfDeadlockException}.
		 * @param reentrant whether the lock is reentrant
		 * @return this builder
		 */
		public Builder reentrant(boolean reentrant) {
			this.reentrant = reentrant;
			return this;
		}

		/**
		 * Set whether the wait time restarts each time the lock changes hands while we
		 * wait, so that only a lock that stays with one holder for the whole wait time
		 * times out.
		 * @param progressAwareTimeout whether the timeout is progress-aware
		 * @return this builder
		 */
		public Builder progressAwareTimeout(boolean progressAwareTimeout) {
			this.progressAwareTimeout = progressAwareTimeout;
			return this;
		}

		/**
		 * Say where the lock is requested, for operators (the actuator endpoint shows
		 * it).
		 * @param origin a short description, for example {@code DeployService.deploy}
		 * @return this builder
		 */
		public Builder origin(@Nullable String origin) {
			this.origin = origin;
			return this;
		}

		/**
		 * Name the owner instead of the calling thread, for example a job id. Any thread,
		 * in any process, that presents the same owner then holds the lock: it can take
		 * it again and release or extend it (see
		 * {@link LockTemplate#findHeld(LockName, String)}). Choose an unguessable owner
		 * if strangers must not be able to do that.
		 * @param owner the owner, non-blank, at most 256 characters
		 * @return this builder
		 */
		public Builder owner(@Nullable String owner) {
			this.owner = owner;
			return this;
		}

		/**
		 * Set whether the watchdog renews the lease while the lock is held. By default,
		 * locks requested without a lease are renewed and locks with one are not.
		 * @param autoRenew whether to renew the lease
		 * @return this builder
		 */
		public Builder autoRenew(boolean autoRenew) {
			this.autoRenew = autoRenew;
			return this;
		}

		/**
		 * Set whether to take the lock alone (the default) or shared with other readers.
		 * @param mode the lock mode
		 * @return this builder
		 */
		public Builder mode(LockMode mode) {
			this.mode = Objects.requireNonNull(mode, "mode must not be null");
			return this;
		}

		/**
		 * Ask for one of {@code permits} permits of a semaphore under this name, instead
		 * of the lock: at most that many holders at once, each permit with its own lease.
		 * A semaphore and a lock of the same name are independent.
		 * @param permits the number of permits, at least 1
		 * @return this builder
		 */
		public Builder permits(int permits) {
			if (permits < 1) {
				throw new IllegalArgumentException("permits must be at least 1, but was " + permits);
			}
			this.permits = permits;
			return this;
		}

		/**
		 * Set whether waiters get the lock in arrival order, across every process. A fair
		 * waiter keeps its place by calling Redis at least every third of the fair waiter
		 * timeout; one that stops (it died) leaves the queue after that timeout. Only the
		 * next waiter is woken by a release. Fairness holds among fair requests: a
		 * non-fair request for the same lock can still take it when it is free.
		 * @param fair whether the lock is fair
		 * @return this builder
		 */
		public Builder fair(boolean fair) {
			this.fair = fair;
			return this;
		}

		/**
		 * Keep the lock taken for at least this long after it is acquired, as ShedLock's
		 * {@code lockAtLeastFor}: a release that comes earlier returns at once but leaves
		 * the lock taken until the minimum hold has passed (the lease, which still caps
		 * it, is shortened to what is left of it; the fencing token does not change). A
		 * re-entered lock stays taken until the latest minimum of its holds, each counted
		 * from its own acquisition. Useful for scheduled jobs, so that an instance whose
		 * clock or schedule is slightly off does not run a job again right after another
		 * finished it.
		 * @param holdAtLeast the minimum hold, not negative, at most
		 * {@link LockRequest#MAX_LEASE}, not longer than an explicit lease
		 * @return this builder
		 */
		public Builder holdAtLeast(Duration holdAtLeast) {
			this.holdAtLeast = Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
			return this;
		}

		/**
		 * Set what happens to the work under the lock when this process finds its lease
		 * lost before the work ends: a renewal or extension found the lock expired or
		 * taken, or the lease ran out unrenewed. With {@link LeaseLossPolicy#INTERRUPT},
		 * {@link LockTemplate#execute} interrupts the thread running the work and throws
		 * {@link LockLeaseLostException}, and {@link ReactiveLockTemplate#execute}
		 * cancels the work and errors with it. It applies to a lease given with
		 * {@link #lease(Duration)} and not renewed, too: the work is stopped when that
		 * lease runs out. Has no effect on {@code acquire}, which runs no work.
		 * @param onLeaseLost the policy, {@link LeaseLossPolicy#CONTINUE} by default
		 * @return this builder
		 */
		public Builder onLeaseLost(LeaseLossPolicy onLeaseLost) {
			this.onLeaseLost = Objects.requireNonNull(onLeaseLost, "onLeaseLost must not be null");
			return this;
		}

		/**
		 * Build the request.
		 * @return the request
		 * @throws IllegalArgumentException if a setting is invalid or settings do not go
		 * together; the message names the lock
		 */
		public LockRequest build() {
			return new LockRequest(new LockName(this.scope, this.key), this.lease, this.waitTime, this.waitStrategy,
					this.reentrant, this.progressAwareTimeout, this.origin, this.owner, this.autoRenew, this.mode,
					this.permits, this.fair, this.holdAtLeast, this.onLeaseLost);
		}

	}

}
