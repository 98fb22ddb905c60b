package io.github.distributedlock.redis;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockOperations;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.CohortLimits;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.Cohorts;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.ReplicaWait;
import io.github.distributedlock.redis.reactive.ReactiveAcquisitions;
import io.github.distributedlock.redis.reactive.ReactorLockPort;
import io.github.distributedlock.redis.server.LockListeners;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.ReactiveKeyspaceCheck;
import io.github.distributedlock.redis.server.ReactiveLockCommands;
import io.github.distributedlock.redis.server.RedisServerFeatures;
import io.github.distributedlock.redis.server.ReplicaAcknowledgements;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;

/**
 * {@link ReactiveLockTemplate} on Redis, through Spring Data Redis's reactive API: the
 * blocking engine's scripts and lease rules, with waits woken by pub/sub and bounded by
 * timers instead of parked threads. Thread-safe.
 * <p>
 * Each subscription to {@link #acquire(LockRequest)} is its own owner, unless the request
 * names a custom owner, whose holds in any process or template are one holder. Create one
 * per application with {@link #builder(ReactiveRedisConnectionFactory)} and
 * {@link #close()} it on shutdown.
 */
public final class ReactiveRedisLockTemplate implements ReactiveLockOperations, AutoCloseable {

	private final LockRequestResolver resolver;

	private final LockKeys keys;

	private final ReactiveKeyspaceCheck keyspaceCheck;

	private final LocalLines lines;

	private final ReactiveRedisConnectionFactory connectionFactory;

	private @Nullable ReactiveRedisMessageListenerContainer container;

	private final boolean ownsContainer;

	private final LockOwners owners = new LockOwners();

	private final AtomicLong subscriptions = new AtomicLong();

	private final HoldRegistry holds;

	private volatile @Nullable Boolean cluster;

	private final ReactiveAcquisitions acquisitions;

	private final ReactorLockPort port;

	private volatile boolean closed;

	private final @Nullable ReplicaAcknowledgements acknowledgements;

	ReactiveRedisLockTemplate(ReactiveRedisLockTemplateBuilder builder) {
		this.keys = new LockKeys(builder.keyPrefix, builder.database);
		ReactiveLockCommands commands = new ReactiveLockCommands(builder.connectionFactory);
		this.connectionFactory = builder.connectionFactory;
		this.container = builder.listenerContainer;
		this.ownsContainer = this.container == null;
		this.port = new ReactorLockPort(commands, Schedulers.parallel(), this::container);
		// A pass writes nothing, so no replica could acknowledge it: no cohorts then.
		CohortLimits cohorts = (builder.replicaAcknowledgements > 0) ? CohortLimits.OFF : builder.cohorts;
		this.lines = new LocalLines(this.port, builder.subscriptionLinger.toNanos(),
				new Cohorts(cohorts, this.owners::cohort));
		this.holds = new HoldRegistry(this.port, this::isCluster, builder.handOff, new LockListeners(builder.listeners),
				this.lines);
		DriverCommands driver = new DriverCommands(this.port, LockKeys.FENCE_IDLE_MILLIS, builder.handOff, this.holds);
		this.acknowledgements = replicaAcknowledgements(builder);
		ReplicaWait replicas = (this.acknowledgements != null) ? new ReplicaWait(this.port, this.acknowledgements,
				builder.handOff, builder.replicaAcknowledgements, builder.replicaTimeout.toMillis(), this.holds) : null;
		this.acquisitions = new ReactiveAcquisitions(new Acquisitions<>(driver, this.lines, this.holds, replicas,
				this::isCluster, builder.handOff, commandTimeoutNanos(builder.connectionFactory)), this.port, commands);
		// Not a Cluster as far as the resolver knows: the keyspace check finds out,
		// without blocking, before the resolver needs to know.
		RedisServerFeatures server = new RedisServerFeatures(null, false, false);
		this.keyspaceCheck = new ReactiveKeyspaceCheck(commands, builder.configureKeyspaceEvents, server);
		this.resolver = new LockRequestResolver(builder.defaults, this.keys, builder.watchdog, true, server,
				builder.fairWaiterTimeout.toMillis());
	}

	/**
	 * Return the count of replicas the builder asks for, on the factory's blocking side,
	 * on whose threads it runs, or {@code null} for none.
	 * @throws IllegalStateException if the factory has no blocking side
	 */
	private static @Nullable ReplicaAcknowledgements replicaAcknowledgements(ReactiveRedisLockTemplateBuilder builder) {
		if (builder.replicaAcknowledgements <= 0) {
			return null;
		}
		if (!(builder.connectionFactory instanceof RedisConnectionFactory blocking)) {
			throw new IllegalStateException("replicaAcknowledgements needs a connection factory that is also a "
					+ "RedisConnectionFactory (as LettuceConnectionFactory is), but was "
					+ builder.connectionFactory.getClass().getName());
		}
		return new ReplicaAcknowledgements(blocking, builder.replicaAcknowledgements, builder.replicaTimeout.toMillis(),
				false);
	}

	private static long commandTimeoutNanos(ReactiveRedisConnectionFactory factory) {
		return (factory instanceof LettuceConnectionFactory lettuce)
				? lettuce.getClientConfiguration().getCommandTimeout().toNanos() : -1;
	}

	/**
	 * Start building a template on the given connection factory.
	 * @param connectionFactory the reactive Redis connection factory
	 * @return a builder
	 */
	public static ReactiveRedisLockTemplateBuilder builder(ReactiveRedisConnectionFactory connectionFactory) {
		return new ReactiveRedisLockTemplateBuilder(connectionFactory);
	}

	@Override
	public Mono<ReactiveLockHandle> acquire(LockRequest request) {
		Objects.requireNonNull(request, "request must not be null");
		return Mono.defer(() -> keyspaceReady(request))
			.then(Mono.defer(() -> this.acquisitions.acquire(resolve(request), owner(request))))
			.doOnDiscard(ReactiveLockHandle.class, ReactiveAcquisitions::releaseDropped);
	}

	@Override
	public Mono<ReactiveLockHandle> acquireAll(List<LockRequest> requests) {
		Objects.requireNonNull(requests, "requests must not be null");
		if (requests.isEmpty()) {
			return Mono.error(new IllegalArgumentException("acquireAll needs at least one lock request"));
		}
		return Flux.fromIterable(requests).concatMap(this::keyspaceReady).then(Mono.defer(() -> {
			long start = System.nanoTime();
			LockSpec first = resolve(requests.get(0));
			List<LockSpec> specs = this.resolver.resolveMultiLockable(requests);
			return this.acquisitions.acquireAll(first, specs, owner(requests.get(0)), start);
		})).doOnDiscard(ReactiveLockHandle.class, ReactiveAcquisitions::releaseDropped);
	}

	/**
	 * Complete once the request may be resolved: at once, unless it waits by keyspace
	 * events that no check has found on yet.
	 */
	private Mono<Void> keyspaceReady(LockRequest request) {
		if (this.closed || this.resolver.strategy(request) != WaitStrategy.KEYSPACE_EVENTS) {
			return Mono.empty();
		}
		return this.keyspaceCheck.ensureEnabled(request.name());
	}

	private String owner(LockRequest request) {
		return (request.owner() != null) ? this.owners.of(request)
				: this.owners.subscription(this.subscriptions.incrementAndGet());
	}

	private LockSpec resolve(LockRequest request) {
		if (this.closed) {
			throw new LockAccessException(request.name(), "the lock service is shut down", null);
		}
		return this.resolver.resolve(request);
	}

	/**
	 * Return whether Redis is a Cluster, found the first time it is asked: from Lettuce's
	 * factory's configuration, since asking it for a connection may wait for Redis on the
	 * asking thread (a subscriber's, a timer's); from a connection of any other.
	 */
	private boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null && this.connectionFactory instanceof LettuceConnectionFactory lettuce) {
			cluster = lettuce.isClusterAware();
			this.cluster = cluster;
		}
		if (cluster == null) {
			ReactiveRedisConnection connection = this.connectionFactory.getReactiveConnection();
			cluster = connection instanceof ReactiveRedisClusterConnection;
			connection.closeLater().subscribe(null, (ex) -> {
			});
			this.cluster = cluster;
		}
		return cluster;
	}

	private synchronized ReactiveRedisMessageListenerContainer container() {
		ReactiveRedisMessageListenerContainer current = this.container;
		if (current == null) {
			// Not at construction: its constructor opens a connection, which an
			// application that never waits for a reactive lock does not need.
			current = new ReactiveRedisMessageListenerContainer(this.connectionFactory);
			this.container = current;
		}
		return current;
	}

	/**
	 * Return the Redis key of a lock, for operators and tests.
	 * @param request the lock
	 * @return the key of the lock hash
	 */
	public String lockKey(LockRequest request) {
		return this.keys.lock(request.name());
	}

	/**
	 * Return how many locks have reactive waiters or lingering subscriptions in this JVM.
	 * @return the number of wait lines
	 */
	public int waitLineCount() {
		return this.lines.size();
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.holds.snapshot();
	}

	/**
	 * Return what this template's cohorts did since it started, and their limits, for
	 * meters and operators ({@code distributed-lock.cohorts.*}).
	 * @return the cohorts' statistics
	 */
	public CohortStatistics cohortStatistics() {
		return this.lines.cohorts().statistics();
	}

	@Override
	public int waitingSubscriptions() {
		return this.lines.waiting();
	}

	/**
	 * Stop: waiters and later acquisitions fail with {@link LockAccessException},
	 * renewals stop, subscriptions are dropped, and a listener container created by this
	 * template is destroyed. Locks still held stay until released or their leases end.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.lines.close();
		this.holds.close();
		this.port.close();
		if (this.acknowledgements != null) {
			this.acknowledgements.close();
		}
		ReactiveRedisMessageListenerContainer container;
		synchronized (this) {
			container = this.ownsContainer ? this.container : null;
		}
		if (container != null) {
			container.destroyLater().subscribe(null, (ex) -> {
			});
		}
	}

}
