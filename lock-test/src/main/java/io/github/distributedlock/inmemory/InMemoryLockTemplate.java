package io.github.distributedlock.inmemory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockTemplate} that keeps its locks in memory, for the unit tests of code that
 * injects {@code LockTemplate}: no Redis is needed.
 * <p>
 * It has the engine's semantics within one JVM: fencing tokens that strictly increase per
 * lock, re-entry, wait times and interrupts, real leases (a hold whose lease ends is
 * lost, and its release throws {@link io.github.distributedlock.LockLeaseLostException}),
 * the minimum hold, read/write locks, permits, fair locks, multi-locks, custom owners and
 * listeners. A lock taken without a lease (or with {@code autoRenew}) stands for one the
 * watchdog renews, and is never lost while held. Templates from {@link #anotherProcess()}
 * share its locks but are other owners, as other processes on one Redis are. Thread-safe.
 */
public final class InMemoryLockTemplate implements LockTemplate {

	private static final Log logger = LogFactory.getLog(InMemoryLockTemplate.class);

	private static final AtomicLong THREAD_IDS = new AtomicLong();

	private static final ThreadLocal<Long> THREAD_ID = ThreadLocal.withInitial(THREAD_IDS::incrementAndGet);

	private static final Duration INDEFINITELY = Duration.ofDays(365 * 100);

	private final InMemoryLockStore store;

	private final LockDefaults defaults;

	private final List<LockListener> listeners;

	private final String instance = UUID.randomUUID().toString();

	/**
	 * Create a template with {@link LockDefaults#STANDARD} settings and locks of its own.
	 */
	public InMemoryLockTemplate() {
		this(new InMemoryLockStore(), LockDefaults.STANDARD, List.of());
	}

	private InMemoryLockTemplate(InMemoryLockStore store, LockDefaults defaults, List<LockListener> listeners) {
		this.store = store;
		this.defaults = defaults;
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Start building a template.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Return a template that shares this one's locks but is another owner, as another
	 * process on the same Redis is; it has the same defaults and listeners.
	 * @return the other template
	 */
	public InMemoryLockTemplate anotherProcess() {
		return new InMemoryLockTemplate(this.store, this.defaults, this.listeners);
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		Claim claim = claim(request);
		return acquire(List.of(claim), request).get(0);
	}

	@Override
	public Optional<LockHandle> tryAcquire(LockRequest request) {
		try {
			return Optional.of(acquire(request));
		}
		catch (LockTimeoutException ex) {
			return Optional.empty();
		}
	}

	@Override
	public LockHandle acquireAll(List<LockRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("acquireAll needs at least one lock request");
		}
		// One global order, as the engine's, though one monitor already rules out
		// deadlocks.
		TreeMap<String, Claim> ordered = new TreeMap<>();
		for (LockRequest request : requests) {
			Claim claim = claim(request);
			if (claim.kind() != HoldKind.EXCLUSIVE || claim.fair()) {
				throw new IllegalArgumentException("Lock '" + claim.name()
						+ "': a multi-lock takes plain exclusive locks only, not read locks, permits or fair locks");
			}
			ordered.putIfAbsent(claim.name().toString(), claim);
		}
		return new InMemoryMultiLockHandle(acquire(new ArrayList<>(ordered.values()), requests.get(0)));
	}

	private List<InMemoryLockHandle> acquire(List<Claim> claims, LockRequest first) {
		Duration wait = (first.waitTime() != null) ? first.waitTime() : this.defaults.waitTime();
		long waitNanos = (wait.compareTo(INDEFINITELY) >= 0) ? Long.MAX_VALUE / 4 : wait.toNanos();
		boolean progressAware = (first.progressAwareTimeout() != null) ? first.progressAwareTimeout()
				: this.defaults.progressAwareTimeout();
		Acquisition acquisition = new Acquisition(this.store, claims, waitNanos, progressAware);
		List<Hold> holds;
		try {
			holds = acquisition.run();
		}
		catch (LockTimeoutException ex) {
			notify((listener) -> listener.notAcquired(ex.getLockName(), ex.getWaited()));
			throw ex;
		}
		List<InMemoryLockHandle> handles = new ArrayList<>(holds.size());
		for (int i = 0; i < holds.size(); i++) {
			InMemoryLockHandle handle = new InMemoryLockHandle(this, this.store, claims.get(i), holds.get(i).token,
					acquisition.attempts() > 1, acquisition.waitedFor(), acquisition.attempts());
			handles.add(handle);
			notify((listener) -> listener.acquired(handle));
		}
		return handles;
	}

	@Override
	public Optional<LockHandle> findHeld(LockName name, String owner) {
		String customOwner = customOwner(owner);
		this.store.monitor().lock();
		try {
			Hold hold = this.store.findWriter(name, customOwner, System.nanoTime());
			if (hold == null) {
				return Optional.empty();
			}
			Claim claim = new Claim(name, HoldKind.EXCLUSIVE, customOwner, true, false, 0, 0, false, 0);
			return Optional.of(new InMemoryLockHandle(this, this.store, claim, hold.token, false, Duration.ZERO, 0));
		}
		finally {
			this.store.monitor().unlock();
		}
	}

	/** The store's monitor, which every change of a hold takes: for tests of races. */
	ReentrantLock monitor() {
		return this.store.monitor();
	}

	@Override
	public boolean isLocked(String scope, @Nullable String key) {
		LockName name = LockName.of(scope, key);
		this.store.monitor().lock();
		try {
			return this.store.isLocked(name, System.nanoTime());
		}
		finally {
			this.store.monitor().unlock();
		}
	}

	@Override
	public boolean isHeldByCurrentThread(String scope, @Nullable String key) {
		LockName name = LockName.of(scope, key);
		this.store.monitor().lock();
		try {
			return this.store.isHeldBy(name, threadOwner(), System.nanoTime());
		}
		finally {
			this.store.monitor().unlock();
		}
	}

	/**
	 * Return the locks of a scope that are taken or waited for, for tests that check
	 * nothing is left behind.
	 */
	List<LockName> lockNames(String scope) {
		this.store.monitor().lock();
		try {
			return this.store.names(scope, System.nanoTime());
		}
		finally {
			this.store.monitor().unlock();
		}
	}

	/**
	 * Return how many fair waiters are lined up for a lock.
	 */
	int fairWaiters(LockName name) {
		this.store.monitor().lock();
		try {
			return this.store.fairWaiters(name);
		}
		finally {
			this.store.monitor().unlock();
		}
	}

	void released(LockContext context, Duration heldFor) {
		notify((listener) -> listener.released(context, heldFor));
	}

	void leaseLost(LockContext context) {
		notify((listener) -> listener.leaseLost(context));
	}

	private Claim claim(LockRequest request) {
		Duration lease = (request.lease() != null) ? request.lease() : this.defaults.lease();
		boolean renewed = (request.autoRenew() != null) ? request.autoRenew() : request.lease() == null;
		boolean reentrant = (request.reentrant() != null) ? request.reentrant() : this.defaults.reentrant();
		HoldKind kind = (request.permits() > 0) ? HoldKind.PERMIT
				: (request.mode() == LockMode.READ) ? HoldKind.READ : HoldKind.EXCLUSIVE;
		String owner = (request.owner() != null) ? customOwner(request.owner()) : threadOwner();
		long holdAtLeast = (request.holdAtLeast() != null) ? request.holdAtLeast().toNanos() : 0;
		return new Claim(request.name(), kind, owner, reentrant, request.fair(), request.permits(), lease.toNanos(),
				renewed, holdAtLeast);
	}

	private String threadOwner() {
		return this.instance + ":" + THREAD_ID.get();
	}

	private static String customOwner(String owner) {
		return "custom:" + owner;
	}

	private void notify(Consumer<LockListener> call) {
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed; ignored", ex);
			}
		}
	}

	/**
	 * Builder for {@link InMemoryLockTemplate}. Not thread-safe.
	 */
	public static final class Builder {

		private LockDefaults defaults = LockDefaults.STANDARD;

		private final List<LockListener> listeners = new ArrayList<>();

		private Builder() {
		}

		/**
		 * Set the settings used for whatever a request leaves unset.
		 * @param defaults the defaults
		 * @return this builder
		 */
		public Builder defaults(LockDefaults defaults) {
			this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
			return this;
		}

		/**
		 * Add a listener, called on the thread concerned.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(LockListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
			return this;
		}

		/**
		 * Build a template with locks of its own.
		 * @return the template
		 */
		public InMemoryLockTemplate build() {
			return new InMemoryLockTemplate(new InMemoryLockStore(), this.defaults, this.listeners);
		}

	}

}
