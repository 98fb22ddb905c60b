package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockOperations;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.blocking.BlockingAcquisitions;
import io.github.distributedlock.redis.blocking.BlockingPort;
import io.github.distributedlock.redis.blocking.LockCommands;
import io.github.distributedlock.redis.blocking.RedisLockHandle;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.Cohorts;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.ReplicaWait;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.server.ListenerContainerLifecycle;
import io.github.distributedlock.redis.server.LockListeners;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.redis.server.ReplicaAcknowledgements;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@link LockTemplate} on Redis, through Spring Data Redis. Thread-safe.
 * <p>
 * Owners are this instance's secret id plus the thread id (see {@link LockOwners}).
 * Create one per application with {@link #builder(RedisConnectionFactory)} and
 * {@link #close()} it on shutdown.
 * <p>
 * An acquisition goes one way: the {@link LockRequestResolver} makes the request a
 * {@link LockSpec}; the driver's {@link Acquisitions} run the {@link LockKind}'s acquire
 * script until it returns a {@link Grant}, which becomes a handle registered in the
 * {@link HoldRegistry}; {@link BlockingAcquisitions} waits for it on the caller's thread.
 */
public final class RedisLockTemplate implements LockOperations {

	private final LockDefaults defaults;

	private final LockKeys keys;

	private final LockCommands commands;

	private final LockRequestResolver resolver;

	private final HoldRegistry registry;

	private final @Nullable ReplicaAcknowledgements acknowledgements;

	// Where renewals and sweeps run, apart from everything else, so that no wait for
	// Redis
	// on another thread delays them.
	private final BlockingPort watchdog;

	private final ListenerContainerLifecycle listening;

	private final BlockingPort port;

	private final BlockingAcquisitions acquisitions;

	private final LockOwners owners = new LockOwners();

	private final LocalLines lines;

	private volatile boolean closed;

	RedisLockTemplate(RedisLockTemplateBuilder builder) {
		this.defaults = builder.defaults;
		this.keys = new LockKeys(builder.keyPrefix, builder.database);
		boolean handOff = builder.handOff;
		StringRedisTemplate redis = new StringRedisTemplate(builder.connectionFactory);
		this.commands = new LockCommands(redis);
		RedisServerFeatures server = new RedisServerFeatures(builder.connectionFactory, null,
				builder.configureKeyspaceEvents);
		this.listening = ListenerContainerLifecycle.of(builder.connectionFactory, builder.listenerContainer,
				builder.pubSub);
		this.port = new BlockingPort(this.commands, this.listening.container(), "distributed-lock");
		// A pass writes nothing, so no replica could acknowledge it: no cohorts then.
		CohortLimits cohorts = (builder.replicaAcknowledgements > 0) ? CohortLimits.OFF : builder.cohorts;
		this.lines = new LocalLines(this.port, builder.subscriptionLinger.toNanos(),
				new Cohorts(cohorts, this.owners::cohort));
		this.watchdog = BlockingPort.inBackground(this.commands, "distributed-lock-watchdog");
		HoldRegistry registry = new HoldRegistry(this.watchdog, server::isCluster, handOff,
				new LockListeners(builder.listeners), this.lines);
		this.registry = registry;
		this.acknowledgements = (builder.replicaAcknowledgements > 0)
				? new ReplicaAcknowledgements(builder.connectionFactory, builder.replicaAcknowledgements,
						builder.replicaTimeout.toMillis(), true)
				: null;
		ReplicaWait replicas = (this.acknowledgements != null) ? new ReplicaWait(this.port, this.acknowledgements,
				handOff, builder.replicaAcknowledgements, builder.replicaTimeout.toMillis(), registry) : null;
		Duration timeout = this.port.commandTimeout();
		Acquisitions<RedisLockHandle> acquisitions = new Acquisitions<>(
				new DriverCommands(this.port, LockKeys.FENCE_IDLE_MILLIS, handOff, registry), this.lines, registry,
				replicas, server::isCluster, handOff, (timeout != null) ? timeout.toNanos() : -1);
		this.acquisitions = new BlockingAcquisitions(this.port, this.commands, acquisitions);
		this.listening.start(this.keys.keepAliveChannel());
		this.resolver = new LockRequestResolver(this.defaults, this.keys, builder.watchdog,
				this.listening.container() != null, server, builder.fairWaiterTimeout.toMillis());
		if (this.defaults.waitStrategy() == WaitStrategy.KEYSPACE_EVENTS) {
			server.checkKeyspaceEvents();
		}
	}

	/**
	 * Start building a template on the given connection factory.
	 * @param connectionFactory the Redis connection factory
	 * @return a builder
	 */
	public static RedisLockTemplateBuilder builder(RedisConnectionFactory connectionFactory) {
		return new RedisLockTemplateBuilder(connectionFactory);
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		long start = System.nanoTime();
		return this.acquisitions.acquire(resolve(request), this.owners.of(request), start);
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
		long start = System.nanoTime();
		LockSpec first = resolve(requests.get(0));
		return this.acquisitions.acquireAll(first, this.resolver.resolveMultiLockable(requests),
				this.owners.of(requests.get(0)), start);
	}

	@Override
	public boolean forceRelease(LockName name) {
		return this.commands.forceRelease(name, this.keys.lock(name));
	}

	@Override
	public Optional<LockHandle> findHeld(LockName name, String owner) {
		LockSpec spec = resolve(LockRequest.builder(name.scope()).key(name.key()).waitTime(Duration.ZERO).build());
		String customOwner = LockOwners.custom(owner);
		// A reply later than the lease it reports is no hold: read once more, as an
		// acquisition sends its attempt again after a late grant.
		for (int read = 1; read <= 2; read++) {
			// Before the read, so the handle's deadline ends before the lease Redis
			// reports.
			long sentNanos = System.nanoTime();
			List<?> held = this.commands.readHold(name, spec.lockKey());
			if (held == null || !LockOwners.digest(customOwner).equals(held.get(0))) {
				return Optional.empty();
			}
			long pttl = ((Number) held.get(2)).longValue();
			if (pttl <= 0) {
				return Optional.empty();
			}
			if (Acquisition.inTime(sentNanos, pttl, System.nanoTime())) {
				long token = Long.parseLong(String.valueOf(held.get(1)));
				return Optional.of(this.acquisitions.adopt(new Grant(spec.withLeaseMillis(pttl), customOwner, token,
						String.valueOf(held.get(3)), sentNanos, false, Duration.ZERO, 0)));
			}
		}
		return Optional.empty();
	}

	@Override
	public boolean isLocked(String scope, @Nullable String key) {
		LockName name = LockName.of(scope, key);
		return this.commands.exists(name, this.keys.lock(name));
	}

	@Override
	public boolean isHeldByCurrentThread(String scope, @Nullable String key) {
		LockName name = LockName.of(scope, key);
		String lockKey = this.keys.lock(name);
		// Under a cohort, Redis records the cohort's owner, and the cohort its holder.
		String owner = this.acquisitions.redisOwner(lockKey, this.owners.current());
		List<@Nullable String> held = this.commands.ownerAndToken(name, lockKey);
		return held != null && LockOwners.digest(owner).equals(held.get(0));
	}

	LockKeys keys() {
		return this.keys;
	}

	LockCommands commands() {
		return this.commands;
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
	 * Return what this template's cohorts did since it started, and their limits, for
	 * meters and operators ({@code distributed-lock.cohorts.*}).
	 * @return the live statistics
	 */
	public CohortStatistics cohortStatistics() {
		return this.lines.cohorts().statistics();
	}

	@Override
	public int waitQueueCount() {
		return this.lines.size();
	}

	/**
	 * Return what this process holds now, for operators: holds neither released nor lost,
	 * whose lease is not over.
	 * @return a snapshot of each hold, oldest first
	 */
	@Override
	public List<HeldLock> heldLocks() {
		return this.registry.snapshot();
	}

	@Override
	public int waitingThreads() {
		return this.lines.waiting();
	}

	private LockSpec resolve(LockRequest request) {
		if (this.closed) {
			throw new LockAccessException(request.name(), "the lock service is shut down", null);
		}
		return this.resolver.resolve(request);
	}

	/**
	 * Stop: waiters and later acquisitions get a {@link LockAccessException},
	 * subscriptions are dropped, and a listener container created by this template is
	 * stopped. Locks still held stay until released or their leases end.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		if (this.acknowledgements != null) {
			this.acknowledgements.close();
		}
		this.registry.close();
		this.watchdog.close();
		// Fails every waiter, and drops every subscription.
		this.lines.close();
		this.port.close();
		this.listening.close();
	}

}
