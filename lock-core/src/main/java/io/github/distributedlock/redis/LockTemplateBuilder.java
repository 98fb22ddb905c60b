package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.core.CohortLimits;

/**
 * The options that {@link RedisLockTemplateBuilder} and
 * {@link ReactiveRedisLockTemplateBuilder} share. Not thread-safe.
 *
 * @param <B> the builder itself, which each option returns
 */
abstract class LockTemplateBuilder<B extends LockTemplateBuilder<B>> {

	LockDefaults defaults = LockDefaults.STANDARD;

	String keyPrefix = "lock";

	int database;

	Duration subscriptionLinger = Duration.ofSeconds(2);

	boolean configureKeyspaceEvents;

	boolean watchdog = true;

	boolean handOff = true;

	int replicaAcknowledgements;

	Duration replicaTimeout = Duration.ofMillis(100);

	Duration fairWaiterTimeout = Duration.ofSeconds(5);

	final List<LockListener> listeners = new ArrayList<>();

	CohortLimits cohorts = CohortLimits.OFF;

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

	/**
	 * Set the defaults for whatever a request leaves unset. The reactive template checks
	 * a keyspace-events default on the first request that uses it, as building it does
	 * not talk to Redis.
	 * @param defaults the defaults
	 * @return this builder
	 */
	public B defaults(LockDefaults defaults) {
		this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
		return self();
	}

	/**
	 * Pass a lock between callers of this template in memory, up to the given number of
	 * holders and within the given time of the hold taken from Redis, when a caller waits
	 * behind the one that took it (docs/design/cohorting.md). Off by default; exclusive
	 * locks with owners the template makes only, and only under a lease of at least three
	 * times the time.
	 * @param holders the most holders of one hold taken from Redis, 1 (off) to
	 * {@value CohortLimits#MAX_HOLDERS}
	 * @param time how long after that hold's attempt a pass may happen
	 * @return this builder
	 */
	public B cohorts(int holders, Duration time) {
		this.cohorts = CohortLimits.of(holders, Objects.requireNonNull(time, "time must not be null"));
		return self();
	}

	/**
	 * Set the prefix of every key and channel, {@code lock} by default: the same for the
	 * blocking and the reactive templates, for the two to exclude each other.
	 * @param keyPrefix the prefix, without braces
	 * @return this builder
	 */
	public B keyPrefix(String keyPrefix) {
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		return self();
	}

	/**
	 * Set the database index, used to name keyspace notification channels.
	 * @param database the database index
	 * @return this builder
	 */
	public B database(int database) {
		this.database = database;
		return self();
	}

	/**
	 * Set how long a lock's subscription stays after its last waiter leaves.
	 * @param subscriptionLinger the linger
	 * @return this builder
	 */
	public B subscriptionLinger(Duration subscriptionLinger) {
		this.subscriptionLinger = Objects.requireNonNull(subscriptionLinger);
		return self();
	}

	/**
	 * Set whether the keyspace wait strategy may run {@code CONFIG SET
	 * notify-keyspace-events} when the server lacks the needed flags.
	 * @param configure whether to configure keyspace notifications
	 * @return this builder
	 */
	public B configureKeyspaceEvents(boolean configure) {
		this.configureKeyspaceEvents = configure;
		return self();
	}

	/**
	 * Set whether locks requested without a lease are renewed (by the watchdog) while
	 * held, with the default lease. On by default. A request can always ask with
	 * {@link LockRequest.Builder#autoRenew(boolean)}.
	 * @param watchdog whether lease-less locks are renewed
	 * @return this builder
	 */
	public B watchdog(boolean watchdog) {
		this.watchdog = watchdog;
		return self();
	}

	/**
	 * Set whether waiters line up across processes: a release then reserves the lock for
	 * the oldest waiter that asked for it, instead of freeing it for whoever tries first,
	 * and tells that waiter to take it. On by default. Waiters are then served in about
	 * the order they came, and readers, polling and multi-lock waiters are not starved by
	 * a stream of writers. A reservation is no hold: the waiter's own attempt takes the
	 * lock, and a reservation whose waiter died or paused lapses after a 2 s claim (three
	 * poll intervals for polling waiters, if longer). Applies to locks and read locks
	 * that are not fair. Use the same setting for both templates on the same Redis.
	 * @param handOff whether waiters line up for reservations
	 * @return this builder
	 */
	public B handOff(boolean handOff) {
		this.handOff = handOff;
		return self();
	}

	/**
	 * Set how long a fair lock's waiter keeps its place in the queue without calling
	 * Redis. Waiters call every third of it, so a waiter that died leaves the queue
	 * within this time. 5 s by default.
	 * @param fairWaiterTimeout the timeout, at least 30 ms
	 * @return this builder
	 */
	public B fairWaiterTimeout(Duration fairWaiterTimeout) {
		if (fairWaiterTimeout.toMillis() < 30) {
			throw new IllegalArgumentException(
					"fairWaiterTimeout must be at least 30 ms, but was " + fairWaiterTimeout);
		}
		this.fairWaiterTimeout = fairWaiterTimeout;
		return self();
	}

	/**
	 * Wait, after each acquisition, until this many replicas have the lock (Redis
	 * {@code WAIT}), and fail the acquisition if they don't within the timeout. This
	 * narrows the window in which a Sentinel failover can lose a lock to asynchronous
	 * replication, at the price of a round trip that also holds up the other commands of
	 * the shared connection. Not for Redis Cluster. Off (0) by default.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long to wait for them
	 * @return this builder
	 */
	public B replicaAcknowledgements(int replicas, Duration timeout) {
		if (replicas < 0) {
			throw new IllegalArgumentException("replicas must not be negative, but was " + replicas);
		}
		this.replicaAcknowledgements = replicas;
		this.replicaTimeout = Objects.requireNonNull(timeout, "timeout must not be null");
		return self();
	}

	/**
	 * Add a listener, for example for metrics. The reactive template's hears of
	 * acquisitions, timeouts, releases and lost leases as from the blocking template, on
	 * Reactor's threads, where it must not block.
	 * @param listener the listener
	 * @return this builder
	 */
	public B listener(LockListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return self();
	}

}
