package io.github.distributedlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * {@link LockTemplate} on Redis, through Spring Data Redis.
 * <p>
 * Owners are this instance's secret id (128 random bits, new at every start, so a restarted
 * process never believes it holds an old lock) plus the thread id. Create one per
 * application with {@link #builder(RedisConnectionFactory)} and {@link #close()} it on
 * shutdown.
 */
public final class RedisLockTemplate implements LockTemplate, AutoCloseable {

	private final LockDefaults defaults;

	private final LockKeys keys;

	private final LockCommands commands;

	private final WaitQueues queues;

	private final RedisConnectionFactory connectionFactory;

	private final @Nullable RedisMessageListenerContainer container;

	private final boolean ownsContainer;

	private final boolean configureKeyspaceEvents;

	private volatile boolean keyspaceEventsChecked;

	private final String instanceId;

	private final LockListener listener;

	private final Set<RedisLockHandle> held = ConcurrentHashMap.newKeySet();

	// Holds per owner and lock key, to tell a real re-entry from a hold left by a lost reply.
	private final ConcurrentHashMap<String, Integer> localHolds = new ConcurrentHashMap<>();

	private final AtomicInteger waiting = new AtomicInteger();

	private final LeaseWatchdog watchdog;

	private final boolean renewLeaselessLocks;

	private volatile @Nullable Boolean cluster;

	private final int replicaAcknowledgements;

	private final long replicaTimeoutMillis;

	private final long fairWaiterTimeoutMillis;

	private final boolean handOff;

	private volatile boolean closed;

	private RedisLockTemplate(Builder builder) {
		this.defaults = builder.defaults;
		this.keys = new LockKeys(builder.keyPrefix, builder.database);
		this.connectionFactory = builder.connectionFactory;
		StringRedisTemplate redis = new StringRedisTemplate(builder.connectionFactory);
		this.handOff = builder.handOff;
		this.commands = new LockCommands(redis, LockKeys.FENCE_IDLE_MILLIS, this.handOff);
		this.configureKeyspaceEvents = builder.configureKeyspaceEvents;
		this.instanceId = newInstanceId();
		this.listener = new LockListeners(builder.listeners);
		this.renewLeaselessLocks = builder.watchdog;
		this.cluster = builder.cluster;
		this.watchdog = new LeaseWatchdog(this.commands, this::isCluster);
		this.replicaAcknowledgements = builder.replicaAcknowledgements;
		this.replicaTimeoutMillis = builder.replicaTimeout.toMillis();
		this.fairWaiterTimeoutMillis = builder.fairWaiterTimeout.toMillis();
		if (builder.listenerContainer != null) {
			this.container = builder.listenerContainer;
			this.ownsContainer = false;
		}
		else if (builder.pubSub) {
			// Only where the template connects at startup anyway: one built without pub/sub, or
			// on a container of its owner's, talks to Redis only when a lock is taken.
			RedisVersion.check(builder.connectionFactory);
			this.container = newContainer(builder.connectionFactory);
			this.ownsContainer = true;
		}
		else {
			this.container = null;
			this.ownsContainer = false;
		}
		this.queues = new WaitQueues(this.container, builder.subscriptionLinger.toNanos());
		if (this.container != null) {
			// A permanent subscription keeps the container listening between waits: removing
			// its last listener would close the pub/sub connection.
			this.container.addMessageListener((message, pattern) -> {
			}, new ChannelTopic(this.keys.keepAliveChannel()));
			if (this.ownsContainer) {
				this.container.start();
			}
		}
		if (this.defaults.waitStrategy() == WaitStrategy.KEYSPACE_EVENTS) {
			checkKeyspaceEvents();
		}
	}

	/**
	 * Start building a template on the given connection factory.
	 * @param connectionFactory the Redis connection factory
	 * @return a builder
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		return new Builder(connectionFactory);
	}

	private static String newInstanceId() {
		byte[] id = new byte[16];
		new SecureRandom().nextBytes(id);
		return HexFormat.of().formatHex(id);
	}

	private static RedisMessageListenerContainer newContainer(RedisConnectionFactory connectionFactory) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(connectionFactory);
		// Listeners only signal a condition, so run them on the thread that received the
		// message (Lettuce's I/O thread, or Jedis's subscription thread) instead of a new
		// thread per message.
		container.setTaskExecutor(Runnable::run);
		// A blocking client (Jedis) subscribes by reading on the calling thread until the
		// subscription ends, so it needs a thread of its own; Lettuce never uses this one.
		SimpleAsyncTaskExecutor subscriptions = new SimpleAsyncTaskExecutor("distributed-lock-subscription-");
		subscriptions.setDaemon(true);
		container.setSubscriptionExecutor(subscriptions);
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2);
		backOff.setMaxInterval(2000);
		container.setRecoveryBackoff(backOff);
		// Spring's 2 s can pass on a busy machine's first connection; Redis truly down still fails.
		container.setMaxSubscriptionRegistrationWaitingTime(5000);
		container.setBeanName("distributedLockListenerContainer");
		container.afterPropertiesSet();
		return container;
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		LockSpec spec = resolve(request);
		WaitLoop loop = new WaitLoop(spec, owner(request), this.commands, this.queues);
		RedisLockHandle handle = loop.run(this);
		if (handle == null) {
			LockTimeoutException timeout = loop.timeout();
			this.listener.notAcquired(spec.name(), timeout.getWaited());
			throw timeout;
		}
		return handle;
	}

	@Override
	public Optional<LockHandle> tryAcquire(LockRequest request) {
		LockSpec spec = resolve(request);
		WaitLoop loop = new WaitLoop(spec, owner(request), this.commands, this.queues);
		RedisLockHandle handle = loop.run(this);
		if (handle == null) {
			this.listener.notAcquired(spec.name(), loop.timeout().getWaited());
		}
		return Optional.ofNullable(handle);
	}

	@Override
	public LockHandle acquireAll(List<LockRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("acquireAll needs at least one lock request");
		}
		long start = System.nanoTime();
		LockSpec first = resolve(requests.get(0));
		// One global order (by key) makes overlapping multi-locks deadlock-free.
		TreeMap<String, LockSpec> ordered = new TreeMap<>();
		for (LockRequest request : requests) {
			LockSpec spec = resolve(request);
			if (spec.kind() != LockKind.EXCLUSIVE || spec.fair()) {
				throw new IllegalArgumentException("Lock '" + spec.name()
						+ "': a multi-lock takes plain exclusive locks only, not read locks, permits or fair locks");
			}
			ordered.putIfAbsent(spec.lockKey(), spec);
		}
		List<LockSpec> specs = new ArrayList<>(ordered.values());
		String owner = owner(requests.get(0));
		List<RedisLockHandle> holds;
		if (specs.size() > 1 && (!isCluster() || sameSlot(specs))) {
			MultiWaitLoop loop = new MultiWaitLoop(specs, owner, first.waitNanos(), first.reentrant(),
					this.handOff && !specs.get(0).fair(), this.commands, this.queues);
			holds = loop.run(this);
			if (holds == null) {
				LockTimeoutException timeout = loop.timeout();
				this.listener.notAcquired(timeout.getLockName(), timeout.getWaited());
				throw timeout;
			}
		}
		else {
			holds = acquireInOrder(specs, owner, first, start);
		}
		return new MultiLockHandle(holds, Duration.ofNanos(System.nanoTime() - start));
	}

	/**
	 * Take locks one by one in the given (global) order, rolling back on failure: for locks
	 * in different Cluster slots, which no single script can take together.
	 */
	private List<RedisLockHandle> acquireInOrder(List<LockSpec> specs, String owner, LockSpec first, long start) {
		List<RedisLockHandle> holds = new ArrayList<>(specs.size());
		try {
			for (LockSpec spec : specs) {
				long remaining = first.waitsIndefinitely() ? -1
						: Math.max(0, first.waitNanos() - (System.nanoTime() - start));
				WaitLoop loop = new WaitLoop(spec.withWaitNanos(remaining), owner, this.commands, this.queues);
				RedisLockHandle hold = loop.run(this);
				if (hold == null) {
					LockTimeoutException timeout = loop.timeout();
					this.listener.notAcquired(spec.name(), Duration.ofNanos(System.nanoTime() - start));
					throw new LockTimeoutException(spec.name(), Duration.ofNanos(System.nanoTime() - start),
							timeout.getHolderRemainingLease());
				}
				holds.add(hold);
			}
			return holds;
		}
		catch (RuntimeException ex) {
			try {
				MultiLockHandle.releaseAll(holds);
			}
			catch (RuntimeException releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
	}

	private static boolean sameSlot(List<LockSpec> specs) {
		int slot = HashSlots.slot(specs.get(0).lockKey());
		return specs.stream().allMatch((spec) -> HashSlots.slot(spec.lockKey()) == slot);
	}

	/**
	 * Delete a lock whoever holds it and wake its waiters. This breaks mutual exclusion for
	 * the current holder, whose release then throws
	 * {@link io.github.distributedlock.LockLeaseLostException}: meant for operators freeing a
	 * lock whose holder is known to be gone.
	 * @param name the lock
	 * @return whether a lock was deleted
	 */
	public boolean forceRelease(LockName name) {
		return this.commands.forceRelease(name, this.keys.lock(name));
	}

	@Override
	public Optional<LockHandle> findHeld(LockName name, String owner) {
		LockSpec spec = resolve(LockRequest.builder(name.scope()).key(name.key()).waitTime(Duration.ZERO).build());
		String customOwner = customOwner(owner);
		// Before the read, so that the handle's deadline ends before the lease Redis reports.
		long sentNanos = System.nanoTime();
		List<?> held = this.commands.readHold(name, spec.lockKey());
		if (held == null || !customOwner.equals(held.get(0))) {
			return Optional.empty();
		}
		long pttl = ((Number) held.get(2)).longValue();
		if (pttl <= 0) {
			return Optional.empty();
		}
		RedisLockHandle handle = new RedisLockHandle(spec.withLeaseMillis(pttl), customOwner,
				Long.parseLong(String.valueOf(held.get(1))), sentNanos, false, Duration.ZERO, 0, this, this.commands);
		this.held.add(handle);
		return Optional.of(handle);
	}

	@Override
	public boolean isLocked(String scope, @Nullable String key) {
		LockName name = LockName.of(scope, key);
		return this.commands.exists(name, this.keys.lock(name));
	}

	@Override
	public boolean isHeldByCurrentThread(String scope, @Nullable String key) {
		LockName name = LockName.of(scope, key);
		List<@Nullable String> held = this.commands.ownerAndToken(name, this.keys.lock(name));
		return held != null && owner().equals(held.get(0));
	}

	/**
	 * Return the defaults applied to requests.
	 * @return the defaults
	 */
	public LockDefaults getDefaults() {
		return this.defaults;
	}

	/**
	 * Return the Redis key of a lock, for operators and tests.
	 * @param name the lock name
	 * @return the key of the lock hash
	 */
	public String lockKey(LockName name) {
		return this.keys.lock(name);
	}

	/**
	 * Return how many locks have waiters in this JVM, or lingering subscriptions.
	 * @return the number of local wait queues
	 */
	public int waitQueueCount() {
		return this.queues.size();
	}

	/**
	 * Return what this process holds now, for operators.
	 * @return a snapshot of each hold, oldest first
	 */
	public List<HeldLock> heldLocks() {
		List<HeldLock> snapshot = new ArrayList<>(this.held.size());
		for (RedisLockHandle handle : this.held) {
			snapshot.add(handle.snapshot());
		}
		snapshot.sort(Comparator.comparing(HeldLock::since));
		return snapshot;
	}

	/**
	 * Return how many threads of this process wait for a lock now.
	 * @return the number of waiting threads
	 */
	public int waitingThreads() {
		return this.waiting.get();
	}

	/**
	 * Return whether waiters for this lock line up in Redis, so that the last holder's
	 * release reserves the lock for the oldest of them: locks and read locks that are not
	 * fair (fair locks have a line of their own; permits have none).
	 */
	boolean handsOver(LockSpec spec) {
		return this.handOff && spec.kind() != LockKind.PERMIT && !spec.fair();
	}

	RedisLockHandle held(LockSpec spec, String owner, long token, long sentNanos, boolean waited, Duration waitedFor,
			int attempts) {
		if (this.replicaAcknowledgements > 0) {
			awaitReplicas(spec, owner, token, sentNanos);
		}
		return register(new RedisLockHandle(spec, owner, token, sentNanos, waited, waitedFor, attempts, this,
				this.commands));
	}

	private RedisLockHandle register(RedisLockHandle handle) {
		LockSpec spec = handle.spec();
		String owner = handle.owner();
		this.held.add(handle);
		this.localHolds.merge(localHoldKey(owner, spec.lockKey()), 1, Integer::sum);
		if (spec.autoRenew()) {
			this.watchdog.watch(handle);
		}
		this.listener.acquired(handle);
		return handle;
	}

	/**
	 * Make sure the lock write reached enough replicas, so that a failover right now would
	 * not hand the lock to someone else; otherwise release it and fail.
	 */
	private void awaitReplicas(LockSpec spec, String owner, long token, long sentNanos) {
		long acked = this.commands.awaitReplicas(spec, owner, token, sentNanos, this.replicaAcknowledgements,
				this.replicaTimeoutMillis);
		if (acked >= this.replicaAcknowledgements) {
			return;
		}
		try {
			this.commands.release(spec, owner, token);
		}
		catch (RuntimeException ex) {
			// The lease ends it anyway.
		}
		if (acked < 0) {
			throw new LockAccessException(spec.name(), "acquired, but the server no longer had it when its "
					+ "replication was checked (the connection moved to another server, as in a failover)", null);
		}
		throw new LockAccessException(spec.name(), "acquired, but only " + acked + " of "
				+ this.replicaAcknowledgements + " replicas acknowledged it within " + this.replicaTimeoutMillis
				+ " ms; released it, since a failover now could give it to someone else", null);
	}

	void waiting(int delta) {
		this.waiting.addAndGet(delta);
	}

	void forget(RedisLockHandle handle) {
		if (this.held.remove(handle)) {
			this.localHolds.computeIfPresent(localHoldKey(handle.owner(), handle.spec().lockKey()),
					(key, holds) -> (holds > 1) ? holds - 1 : null);
		}
		this.watchdog.unwatch(handle);
	}

	/**
	 * Return whether the owner holds the lock through a handle of this template. A custom
	 * owner may also hold it elsewhere, so for those the answer is always yes.
	 */
	boolean holdsLocally(String owner, String lockKey) {
		return owner.startsWith("custom:") || this.localHolds.containsKey(localHoldKey(owner, lockKey));
	}

	private static String localHoldKey(String owner, String lockKey) {
		return owner + '\n' + lockKey;
	}

	void released(RedisLockHandle handle, Duration heldFor) {
		this.listener.released(handle, heldFor);
	}

	void lost(RedisLockHandle handle) {
		this.listener.leaseLost(handle);
	}

	private String owner() {
		return this.instanceId + ":" + Thread.currentThread().getId();
	}

	private String owner(LockRequest request) {
		String custom = request.owner();
		return (custom != null) ? customOwner(custom) : owner();
	}

	private static String customOwner(String owner) {
		// Never equal to a generated owner, which is hex + ':' + a number.
		return "custom:" + owner;
	}

	private boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				cluster = connection instanceof RedisClusterConnection;
			}
			this.cluster = cluster;
		}
		return cluster;
	}

	private LockSpec resolve(LockRequest request) {
		LockName name = request.name();
		if (this.closed) {
			throw new LockAccessException(name, "the lock service is shut down", null);
		}
		Duration lease = (request.lease() != null) ? request.lease() : this.defaults.lease();
		boolean autoRenew = (request.autoRenew() != null) ? request.autoRenew()
				: (request.lease() == null && this.renewLeaselessLocks);
		Duration wait = (request.waitTime() != null) ? request.waitTime() : this.defaults.waitTime();
		WaitStrategy strategy = (request.waitStrategy() != null) ? request.waitStrategy()
				: this.defaults.waitStrategy();
		boolean reentrant = (request.reentrant() != null) ? request.reentrant() : this.defaults.reentrant();
		boolean progressAware = (request.progressAwareTimeout() != null) ? request.progressAwareTimeout()
				: this.defaults.progressAwareTimeout();
		if (strategy != WaitStrategy.POLLING && this.container == null) {
			throw new LockAccessException(name,
					"wait strategy " + strategy + " needs pub/sub, which this template was built without", null);
		}
		if (strategy == WaitStrategy.KEYSPACE_EVENTS && !this.keyspaceEventsChecked) {
			if (isCluster()) {
				throw new IllegalStateException("Lock '" + name + "': the KEYSPACE_EVENTS wait strategy does not work on "
						+ "Redis Cluster, where keyspace notifications stay on the node that owns the key; use PUBSUB");
			}
			checkKeyspaceEvents();
		}
		LockKind kind = (request.permits() > 0) ? LockKind.PERMIT
				: (request.mode() == LockMode.READ) ? LockKind.READ : LockKind.EXCLUSIVE;
		if (kind != LockKind.EXCLUSIVE && strategy == WaitStrategy.KEYSPACE_EVENTS) {
			// Readers and permits live in sorted sets whose keyspace events don't say "free".
			strategy = WaitStrategy.PUBSUB;
		}
		String lockKey = this.keys.lock(name);
		String releaseChannel = (kind == LockKind.PERMIT) ? LockKeys.releaseChannel(lockKey + ":permits")
				: LockKeys.releaseChannel(lockKey);
		List<String> waitChannels = switch (strategy) {
			case PUBSUB -> List.of(releaseChannel);
			// A writer may wait for readers, whose set is deleted when the last one leaves.
			// The release channel too, for the reservations the key's events don't tell apart.
			case KEYSPACE_EVENTS -> List.of(this.keys.keyspaceChannel(lockKey),
					this.keys.keyspaceChannel(lockKey + ":readers"), releaseChannel);
			case POLLING -> List.of(lockKey);
		};
		String queueId = (kind == LockKind.EXCLUSIVE) ? waitChannels.get(0) : waitChannels.get(0) + "#" + kind;
		return new LockSpec(name, lockKey, LockKeys.fence(lockKey), releaseChannel, waitChannels, lease.toMillis(),
				waitNanos(wait), strategy, reentrant, progressAware, this.defaults.pollInterval().toNanos(),
				request.origin(), autoRenew, kind, request.permits(), queueId, request.fair(),
				this.fairWaiterTimeoutMillis);
	}

	private static long waitNanos(Duration wait) {
		// Anything near the representable maximum means "indefinitely".
		if (wait.compareTo(Duration.ofDays(365L * 100)) >= 0) {
			return -1;
		}
		return wait.toNanos();
	}

	private void checkKeyspaceEvents() {
		KeyspaceNotifications.ensureEnabled(this.connectionFactory, this.configureKeyspaceEvents);
		this.keyspaceEventsChecked = true;
	}

	/**
	 * Stop: waiters get a {@link LockAccessException}, subscriptions are dropped, and a
	 * listener container created by this template is stopped. Locks still held stay until
	 * their holders release them or their leases end.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.watchdog.close();
		this.queues.close();
		if (this.container != null && this.ownsContainer) {
			try {
				this.container.destroy();
			}
			catch (Exception ex) {
				// Closing anyway.
			}
		}
	}

	/**
	 * Builder for {@link RedisLockTemplate}. Not thread-safe.
	 */
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private @Nullable RedisMessageListenerContainer listenerContainer;

		private boolean pubSub = true;

		private LockDefaults defaults = LockDefaults.STANDARD;

		private String keyPrefix = "lock";

		private int database;

		private Duration subscriptionLinger = Duration.ofSeconds(2);

		private boolean configureKeyspaceEvents;

		private final List<LockListener> listeners = new ArrayList<>();

		private boolean watchdog = true;

		private @Nullable Boolean cluster;

		private int replicaAcknowledgements;

		private Duration replicaTimeout = Duration.ofMillis(100);

		private Duration fairWaiterTimeout = Duration.ofSeconds(5);

		private boolean handOff = true;

		private Builder(RedisConnectionFactory connectionFactory) {
			this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		}

		/**
		 * Use this listener container for wake-ups instead of creating one. It must be started
		 * by its owner (in Spring, as a bean it is).
		 * @param listenerContainer the container
		 * @return this builder
		 */
		public Builder listenerContainer(RedisMessageListenerContainer listenerContainer) {
			this.listenerContainer = listenerContainer;
			return this;
		}

		/**
		 * Set whether to use pub/sub at all. Without it, only {@link WaitStrategy#POLLING}
		 * works, and the default strategy must be polling.
		 * @param pubSub whether pub/sub is available
		 * @return this builder
		 */
		public Builder pubSub(boolean pubSub) {
			this.pubSub = pubSub;
			return this;
		}

		/**
		 * Set the defaults for whatever a request leaves unset.
		 * @param defaults the defaults
		 * @return this builder
		 */
		public Builder defaults(LockDefaults defaults) {
			this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
			return this;
		}

		/**
		 * Set the prefix of every key and channel, {@code lock} by default.
		 * @param keyPrefix the prefix, without braces
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
			return this;
		}

		/**
		 * Set the database index, used to name keyspace notification channels.
		 * @param database the database index
		 * @return this builder
		 */
		public Builder database(int database) {
			this.database = database;
			return this;
		}

		/**
		 * Set how long a lock's subscription stays after its last waiter leaves.
		 * @param subscriptionLinger the linger
		 * @return this builder
		 */
		public Builder subscriptionLinger(Duration subscriptionLinger) {
			this.subscriptionLinger = Objects.requireNonNull(subscriptionLinger);
			return this;
		}

		/**
		 * Formerly set how long a lock's fencing counter survived without acquisitions.
		 * @param fencingCounterIdle ignored
		 * @return this builder
		 * @deprecated since 0.1.0 with nothing to replace it: fencing counters are one per
		 * Redis hash slot, not one per lock, so what they keep is bounded by the slots in use
		 * whatever the idle time; this setting is ignored
		 */
		@Deprecated(since = "0.1.0")
		public Builder fencingCounterIdle(Duration fencingCounterIdle) {
			Objects.requireNonNull(fencingCounterIdle);
			return this;
		}

		/**
		 * Set whether the keyspace wait strategy may run {@code CONFIG SET
		 * notify-keyspace-events} when the server lacks the needed flags.
		 * @param configure whether to configure keyspace notifications
		 * @return this builder
		 */
		public Builder configureKeyspaceEvents(boolean configure) {
			this.configureKeyspaceEvents = configure;
			return this;
		}

		/**
		 * Set whether locks requested without a lease are renewed by the watchdog while held,
		 * with the default lease. On by default. A request can always ask with
		 * {@link LockRequest.Builder#autoRenew(boolean)}.
		 * @param watchdog whether lease-less locks are renewed
		 * @return this builder
		 */
		public Builder watchdog(boolean watchdog) {
			this.watchdog = watchdog;
			return this;
		}

		/**
		 * Say whether Redis is a Cluster, so that batched scripts are grouped by hash slot.
		 * Detected from a connection when not set.
		 * @param cluster whether Redis is a Cluster
		 * @return this builder
		 */
		public Builder cluster(boolean cluster) {
			this.cluster = cluster;
			return this;
		}

		/**
		 * Wait, after each acquisition, until this many replicas have the lock (Redis
		 * {@code WAIT}), and fail the acquisition if they don't within the timeout. This
		 * narrows the window in which a Sentinel failover can lose a lock to asynchronous
		 * replication, at the price of a round trip that also holds up the other commands
		 * of the shared connection. {@code CLIENT INFO} (Redis 6.2+) tells whether the
		 * {@code WAIT} ran on the connection that wrote the lock, since a reconnect in
		 * between would make it confirm nothing. Not for Redis Cluster. Off (0) by default.
		 * @param replicas how many replicas must acknowledge
		 * @param timeout how long to wait for them
		 * @return this builder
		 */
		public Builder replicaAcknowledgements(int replicas, Duration timeout) {
			if (replicas < 0) {
				throw new IllegalArgumentException("replicas must not be negative, but was " + replicas);
			}
			this.replicaAcknowledgements = replicas;
			this.replicaTimeout = Objects.requireNonNull(timeout, "timeout must not be null");
			return this;
		}

		/**
		 * Set whether waiters line up across processes: a release then reserves the lock for
		 * the oldest waiter that asked for it, instead of freeing it for whoever tries first,
		 * and tells that waiter to take it. On by default. It keeps the releasing caller and
		 * newcomers from barging in, so waiters are served in about the order they came, and
		 * readers, polling and multi-lock waiters are not starved by a stream of writers. A
		 * reservation is no hold: the waiter's own attempt takes the lock, so a reservation
		 * whose waiter died or paused lapses after a 2 s claim (three poll intervals for
		 * polling waiters, if longer). Applies to locks and read locks that are not fair.
		 * @param handOff whether waiters line up for reservations
		 * @return this builder
		 */
		public Builder handOff(boolean handOff) {
			this.handOff = handOff;
			return this;
		}

		/**
		 * Set how long a fair lock's waiter keeps its place in the queue without calling
		 * Redis. Waiters call every third of it, so a waiter that died leaves the queue
		 * within this time. 5 s by default.
		 * @param fairWaiterTimeout the timeout, at least 30 ms
		 * @return this builder
		 */
		public Builder fairWaiterTimeout(Duration fairWaiterTimeout) {
			if (fairWaiterTimeout.toMillis() < 30) {
				throw new IllegalArgumentException("fairWaiterTimeout must be at least 30 ms, but was " + fairWaiterTimeout);
			}
			this.fairWaiterTimeout = fairWaiterTimeout;
			return this;
		}

		/**
		 * Add a listener, for example for metrics.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(LockListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
			return this;
		}

		/**
		 * Build and start the template.
		 * @return the template
		 * @throws IllegalStateException if the template starts its own pub/sub listener
		 * container (the default) and Redis answers {@code INFO} with a version older than
		 * 6.2, which the lock scripts need
		 */
		public RedisLockTemplate build() {
			if (this.listenerContainer == null && !this.pubSub
					&& this.defaults.waitStrategy() != WaitStrategy.POLLING) {
				throw new IllegalStateException("Without pub/sub the default wait strategy must be POLLING, but was "
						+ this.defaults.waitStrategy());
			}
			return new RedisLockTemplate(this);
		}

	}

}
