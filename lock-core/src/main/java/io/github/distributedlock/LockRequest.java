package io.github.distributedlock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An immutable description of the lock to take and how. Settings left unset come from the
 * {@link LockDefaults} of the {@link LockTemplate} (in Spring Boot, from
 * {@code distributed-lock.*} properties). <pre class="code">
 * LockRequest request = LockRequest.builder("server_access").key(serverId)
 *         .lease(Duration.ofSeconds(10))
 *         .waitTime(Duration.ofSeconds(2))
 *         .build();
 * </pre>
 */
public final class LockRequest {

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

	private final LockName name;

	private final @Nullable Duration lease;

	private final @Nullable Duration waitTime;

	private final @Nullable WaitStrategy waitStrategy;

	private final @Nullable Boolean reentrant;

	private final @Nullable Boolean progressAwareTimeout;

	private final @Nullable String origin;

	private final @Nullable String owner;

	private final @Nullable Boolean autoRenew;

	private final LockMode mode;

	private final int permits;

	private final boolean fair;

	private final @Nullable Duration holdAtLeast;

	private final LeaseLossPolicy onLeaseLost;

	private LockRequest(Builder builder) {
		this.name = new LockName(builder.scope, builder.key);
		this.lease = builder.lease;
		this.waitTime = builder.waitTime;
		this.waitStrategy = builder.waitStrategy;
		this.reentrant = builder.reentrant;
		this.progressAwareTimeout = builder.progressAwareTimeout;
		this.origin = builder.origin;
		this.owner = builder.owner;
		this.autoRenew = builder.autoRenew;
		this.mode = builder.mode;
		this.permits = builder.permits;
		this.fair = builder.fair;
		this.holdAtLeast = builder.holdAtLeast;
		this.onLeaseLost = builder.onLeaseLost;
		if (this.fair && (this.permits > 0 || this.mode == LockMode.READ)) {
			throw new IllegalArgumentException(
					"Lock '" + this.name + "': only exclusive (write) locks can be fair, not read locks or permits");
		}
		if (this.permits < 0) {
			throw new IllegalArgumentException(
					"Lock '" + this.name + "': permits must be at least 1, but was " + this.permits);
		}
		if (this.permits > 0 && this.mode == LockMode.READ) {
			throw new IllegalArgumentException("Lock '" + this.name + "': a semaphore (permits) has no read mode");
		}
		if (this.owner != null && (this.owner.isBlank() || this.owner.length() > MAX_OWNER_LENGTH)) {
			throw new IllegalArgumentException("Lock '" + this.name + "': a custom owner must be non-blank and at most "
					+ MAX_OWNER_LENGTH + " characters");
		}
		if (this.lease != null && !isValidLease(this.lease)) {
			throw new IllegalArgumentException("Lock '" + this.name + "': lease must be between 1 ms and "
					+ MAX_LEASE.toDays() + " days, but was " + this.lease);
		}
		if (this.waitTime != null && this.waitTime.isNegative()) {
			throw new IllegalArgumentException(
					"Lock '" + this.name + "': wait time must not be negative, but was " + this.waitTime);
		}
		if (this.holdAtLeast != null) {
			checkHoldAtLeast(this.name, this.holdAtLeast, this.lease);
		}
	}

	private static void checkHoldAtLeast(LockName name, Duration holdAtLeast, @Nullable Duration lease) {
		if (holdAtLeast.isNegative()) {
			throw new IllegalArgumentException(
					"Lock '" + name + "': minimum hold must not be negative, but was " + holdAtLeast);
		}
		if (holdAtLeast.compareTo(MAX_LEASE) > 0) {
			throw new IllegalArgumentException("Lock '" + name + "': minimum hold must be at most " + MAX_LEASE.toDays()
					+ " days, but was " + holdAtLeast);
		}
		if (lease != null && holdAtLeast.compareTo(lease) > 0) {
			throw new IllegalArgumentException("Lock '" + name + "': minimum hold " + holdAtLeast
					+ " is longer than the lease " + lease + "; the lease caps how long the lock stays taken, "
					+ "so give a lease of at least the minimum hold");
		}
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

	public LockName name() {
		return this.name;
	}

	public @Nullable Duration lease() {
		return this.lease;
	}

	public @Nullable Duration waitTime() {
		return this.waitTime;
	}

	public @Nullable WaitStrategy waitStrategy() {
		return this.waitStrategy;
	}

	public @Nullable Boolean reentrant() {
		return this.reentrant;
	}

	public @Nullable Boolean progressAwareTimeout() {
		return this.progressAwareTimeout;
	}

	/**
	 * Return where the lock is requested, for example {@code DeployService.deploy}, shown
	 * to operators next to the hold.
	 * @return the origin, or {@code null}
	 */
	public @Nullable String origin() {
		return this.origin;
	}

	/**
	 * Return the custom owner, if the request names one instead of the calling thread.
	 * @return the custom owner, or {@code null}
	 */
	public @Nullable String owner() {
		return this.owner;
	}

	/**
	 * Return whether the lease is renewed by the watchdog while the lock is held; unset
	 * means "renewed when no lease is given".
	 * @return whether the lease is renewed, or {@code null}
	 */
	public @Nullable Boolean autoRenew() {
		return this.autoRenew;
	}

	/**
	 * Return whether the lock is taken alone or shared with readers.
	 * @return the lock mode
	 */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Return the number of permits, when this requests one permit of a semaphore.
	 * @return the permits, or 0 for a lock
	 */
	public int permits() {
		return this.permits;
	}

	/**
	 * Return whether waiters get the lock in arrival order, across processes.
	 * @return whether the lock is fair
	 */
	public boolean fair() {
		return this.fair;
	}

	/**
	 * Return how long the lock stays taken at least, counted from its acquisition: a
	 * release before then only shortens the lease to what is left of the minimum hold, so
	 * that the lock stays taken until {@code max(release, acquired + holdAtLeast)}, never
	 * past the lease. Nobody waits for it: the release returns at once.
	 * @return the minimum hold, or {@code null} for none
	 */
	public @Nullable Duration holdAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * Return what happens to the work under the lock when its lease is found lost before
	 * the work ends.
	 * @return the policy, {@link LeaseLossPolicy#CONTINUE} unless set
	 */
	public LeaseLossPolicy onLeaseLost() {
		return this.onLeaseLost;
	}

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
		 * the lock taken until the minimum hold has passed (the lease is shortened to
		 * what is left of it). The lease still caps it, and the fencing token does not
		 * change. For a re-entered lock, each hold's minimum counts from its own
		 * acquisition and the lock stays taken until the latest of them once the last
		 * hold is released. Useful for scheduled jobs, so that an instance whose clock or
		 * schedule is slightly off does not run the same job again right after another
		 * finished it.
		 * @param holdAtLeast the minimum hold, not negative, not longer than an explicit
		 * lease
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
		 * @throws IllegalArgumentException if the name, lease or wait time is invalid;
		 * the message names the lock
		 */
		public LockRequest build() {
			return new LockRequest(this);
		}

	}

}
