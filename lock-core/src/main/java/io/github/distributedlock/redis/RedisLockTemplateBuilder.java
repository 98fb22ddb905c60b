package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Builder for {@link RedisLockTemplate}:
 * {@link RedisLockTemplate#builder(RedisConnectionFactory)}. Not thread-safe.
 */
public final class RedisLockTemplateBuilder {

	final RedisConnectionFactory connectionFactory;

	@Nullable RedisMessageListenerContainer listenerContainer;

	boolean pubSub = true;

	LockDefaults defaults = LockDefaults.STANDARD;

	String keyPrefix = "lock";

	int database;

	Duration subscriptionLinger = Duration.ofSeconds(2);

	boolean configureKeyspaceEvents;

	final List<LockListener> listeners = new ArrayList<>();

	boolean watchdog = true;

	@Nullable Boolean cluster;

	int replicaAcknowledgements;

	Duration replicaTimeout = Duration.ofMillis(100);

	Duration fairWaiterTimeout = Duration.ofSeconds(5);

	boolean handOff = true;

	RedisLockTemplateBuilder(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
	}

	/**
	 * Use this listener container for wake-ups instead of creating one. It must be
	 * started by its owner (in Spring, as a bean it is).
	 * @param listenerContainer the container
	 * @return this builder
	 */
	public RedisLockTemplateBuilder listenerContainer(RedisMessageListenerContainer listenerContainer) {
		this.listenerContainer = listenerContainer;
		return this;
	}

	/**
	 * Set whether to use pub/sub at all. Without it, only {@link WaitStrategy#POLLING}
	 * works, and the default strategy must be polling.
	 * @param pubSub whether pub/sub is available
	 * @return this builder
	 */
	public RedisLockTemplateBuilder pubSub(boolean pubSub) {
		this.pubSub = pubSub;
		return this;
	}

	/**
	 * Set the defaults for whatever a request leaves unset.
	 * @param defaults the defaults
	 * @return this builder
	 */
	public RedisLockTemplateBuilder defaults(LockDefaults defaults) {
		this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
		return this;
	}

	/**
	 * Set the prefix of every key and channel, {@code lock} by default.
	 * @param keyPrefix the prefix, without braces
	 * @return this builder
	 */
	public RedisLockTemplateBuilder keyPrefix(String keyPrefix) {
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		return this;
	}

	/**
	 * Set the database index, used to name keyspace notification channels.
	 * @param database the database index
	 * @return this builder
	 */
	public RedisLockTemplateBuilder database(int database) {
		this.database = database;
		return this;
	}

	/**
	 * Set how long a lock's subscription stays after its last waiter leaves.
	 * @param subscriptionLinger the linger
	 * @return this builder
	 */
	public RedisLockTemplateBuilder subscriptionLinger(Duration subscriptionLinger) {
		this.subscriptionLinger = Objects.requireNonNull(subscriptionLinger);
		return this;
	}

	/**
	 * Set whether the keyspace wait strategy may run {@code CONFIG SET
	 * notify-keyspace-events} when the server lacks the needed flags.
	 * @param configure whether to configure keyspace notifications
	 * @return this builder
	 */
	public RedisLockTemplateBuilder configureKeyspaceEvents(boolean configure) {
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
	public RedisLockTemplateBuilder watchdog(boolean watchdog) {
		this.watchdog = watchdog;
		return this;
	}

	/**
	 * Say whether Redis is a Cluster, so that batched scripts are grouped by hash slot.
	 * Detected from a connection when not set.
	 * @param cluster whether Redis is a Cluster
	 * @return this builder
	 */
	public RedisLockTemplateBuilder cluster(boolean cluster) {
		this.cluster = cluster;
		return this;
	}

	/**
	 * Wait, after each acquisition, until this many replicas have the lock (Redis
	 * {@code WAIT}), and fail the acquisition if they don't within the timeout. This
	 * narrows the window in which a Sentinel failover can lose a lock to asynchronous
	 * replication, at the price of a round trip that also holds up the other commands of
	 * the shared connection. {@code CLIENT INFO} (Redis 6.2+) tells whether the
	 * {@code WAIT} ran on the connection that wrote the lock, since a reconnect in
	 * between would make it confirm nothing. Not for Redis Cluster. Off (0) by default.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long to wait for them
	 * @return this builder
	 */
	public RedisLockTemplateBuilder replicaAcknowledgements(int replicas, Duration timeout) {
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
	public RedisLockTemplateBuilder handOff(boolean handOff) {
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
	public RedisLockTemplateBuilder fairWaiterTimeout(Duration fairWaiterTimeout) {
		if (fairWaiterTimeout.toMillis() < 30) {
			throw new IllegalArgumentException(
					"fairWaiterTimeout must be at least 30 ms, but was " + fairWaiterTimeout);
		}
		this.fairWaiterTimeout = fairWaiterTimeout;
		return this;
	}

	/**
	 * Add a listener, for example for metrics.
	 * @param listener the listener
	 * @return this builder
	 */
	public RedisLockTemplateBuilder listener(LockListener listener) {
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
		if (this.listenerContainer == null && !this.pubSub && this.defaults.waitStrategy() != WaitStrategy.POLLING) {
			throw new IllegalStateException("Without pub/sub the default wait strategy must be POLLING, but was "
					+ this.defaults.waitStrategy());
		}
		return new RedisLockTemplate(this);
	}

}
