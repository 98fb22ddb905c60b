package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.distributedlock.WaitStrategy;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * Configuration properties for distributed locks. The lock settings are the defaults for
 * whatever a {@code @DistributedLock} or a {@code LockRequest} leaves unset.
 */
@ConfigurationProperties("distributed-lock")
public class DistributedLockProperties {

	/**
	 * Whether to enable distributed locks: the lock template, the @DistributedLock
	 * aspect, the metrics and the endpoint.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel of the locks.
	 */
	private String keyPrefix = "lock";

	/**
	 * How long a lock stays taken if it is never released (the annotation's expire).
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * How long to wait for a taken lock. Zero tries once.
	 */
	private Duration waitTime = Duration.ofSeconds(10);

	/**
	 * How waiters learn that a lock may be free.
	 */
	private WaitStrategy waitStrategy = WaitStrategy.PUBSUB;

	/**
	 * Whether the thread that holds a lock may take it again.
	 */
	private boolean reentrant = true;

	/**
	 * Whether the wait time restarts each time a lock changes hands while waiting.
	 */
	private boolean progressAwareTimeout;

	/**
	 * How long a lock's pub/sub subscription is kept after its last local waiter leaves.
	 */
	private Duration subscriptionLinger = Duration.ofSeconds(2);

	/**
	 * Whether waiters line up across processes, so that a release reserves the lock for
	 * the oldest waiter (locks and read locks that are not fair) instead of freeing it
	 * for the waiters to race for.
	 */
	private boolean handOff = true;

	/**
	 * Whether to start when the Redis maxmemory-policy can evict lock keys (any policy
	 * but noeviction), logging a warning instead of failing: a lock whose key is evicted
	 * can be taken by a second caller while it is still held.
	 */
	private boolean allowEviction;

	private final Polling polling = new Polling();

	private final KeyspaceEvents keyspaceEvents = new KeyspaceEvents();

	private final Watchdog watchdog = new Watchdog();

	private final ReconnectDelay reconnectDelay = new ReconnectDelay();

	private final Cohorts cohorts = new Cohorts();

	private final Aspect aspect = new Aspect();

	private final Fair fair = new Fair();

	private final ReplicaAcknowledgements replicaAcknowledgements = new ReplicaAcknowledgements();

	private final Actuator actuator = new Actuator();

	private final ProblemDetails problemDetails = new ProblemDetails();

	private final Leader leader = new Leader();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public WaitStrategy getWaitStrategy() {
		return this.waitStrategy;
	}

	public void setWaitStrategy(WaitStrategy waitStrategy) {
		this.waitStrategy = waitStrategy;
	}

	public boolean isReentrant() {
		return this.reentrant;
	}

	public void setReentrant(boolean reentrant) {
		this.reentrant = reentrant;
	}

	public boolean isProgressAwareTimeout() {
		return this.progressAwareTimeout;
	}

	public void setProgressAwareTimeout(boolean progressAwareTimeout) {
		this.progressAwareTimeout = progressAwareTimeout;
	}

	public boolean isHandOff() {
		return this.handOff;
	}

	public void setHandOff(boolean handOff) {
		this.handOff = handOff;
	}

	public boolean isAllowEviction() {
		return this.allowEviction;
	}

	public void setAllowEviction(boolean allowEviction) {
		this.allowEviction = allowEviction;
	}

	public Duration getSubscriptionLinger() {
		return this.subscriptionLinger;
	}

	public void setSubscriptionLinger(Duration subscriptionLinger) {
		this.subscriptionLinger = subscriptionLinger;
	}

	public Polling getPolling() {
		return this.polling;
	}

	public KeyspaceEvents getKeyspaceEvents() {
		return this.keyspaceEvents;
	}

	public Watchdog getWatchdog() {
		return this.watchdog;
	}

	public ReconnectDelay getReconnectDelay() {
		return this.reconnectDelay;
	}

	public Cohorts getCohorts() {
		return this.cohorts;
	}

	/**
	 * Return whether the templates pass locks in cohorts: as
	 * {@code distributed-lock.cohorts.enabled} says, or, unset, wherever they can: with
	 * hand-off, without replica acknowledgements, and unless the limits set say none
	 * ({@code max-holders} under 2, as the builder reads 1, or {@code max-time} of zero),
	 * which would have started before cohorts were on by default.
	 */
	public boolean cohortsOn() {
		Boolean enabled = this.cohorts.getEnabled();
		if (enabled != null) {
			return enabled;
		}
		return this.handOff && this.replicaAcknowledgements.getReplicas() == 0 && this.cohorts.getMaxHolders() >= 2
				&& this.cohorts.getMaxTime().compareTo(Duration.ZERO) > 0;
	}

	public Aspect getAspect() {
		return this.aspect;
	}

	public Fair getFair() {
		return this.fair;
	}

	public ReplicaAcknowledgements getReplicaAcknowledgements() {
		return this.replicaAcknowledgements;
	}

	public Actuator getActuator() {
		return this.actuator;
	}

	public Leader getLeader() {
		return this.leader;
	}

	public ProblemDetails getProblemDetails() {
		return this.problemDetails;
	}

	/**
	 * Settings of the polling wait strategy.
	 */
	public static class Polling {

		/**
		 * Interval between attempts of the POLLING wait strategy.
		 */
		private Duration interval = Duration.ofMillis(100);

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/**
	 * Settings of the keyspace-events wait strategy.
	 */
	public static class KeyspaceEvents {

		/**
		 * Whether the KEYSPACE_EVENTS wait strategy may set notify-keyspace-events on the
		 * Redis server when it lacks the needed flags.
		 */
		private boolean configure;

		public boolean isConfigure() {
			return this.configure;
		}

		public void setConfigure(boolean configure) {
			this.configure = configure;
		}

	}

	/**
	 * Settings of the lease watchdog.
	 */
	public static class Watchdog {

		/**
		 * Whether locks that set no lease are renewed while they are held, so that a live
		 * holder never loses them.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Settings of the reconnect delay of the application's Lettuce client.
	 */
	public static class ReconnectDelay {

		/**
		 * Whether to cap the delay between the reconnect attempts of the application's
		 * Lettuce client, so that lock calls work again soon after Redis is back. Off,
		 * Lettuce's own back-off applies, which grows to tens of seconds during a long
		 * outage.
		 */
		private boolean enabled = true;

		/**
		 * Longest delay between two reconnect attempts of the application's Lettuce
		 * client: about how long lock calls keep failing after Redis is back.
		 */
		private Duration max = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

	}

	/**
	 * Settings of cohorts: passing a lock between callers of this application in memory.
	 */
	public static class Cohorts {

		/**
		 * Whether a release passes the lock in memory to a caller of this application
		 * that waits for it, with the next fencing token of a block reserved in Redis,
		 * instead of through Redis. Callers of other processes then wait for up to a
		 * cohort. Exclusive locks of either template with owners the template makes,
		 * waiters that listen (not polling) and hand-off only; not with replica
		 * acknowledgements. Unset, on wherever it can be: with hand-off and without
		 * replica acknowledgements. False gives strict oldest-first hand-off.
		 */
		private @Nullable Boolean enabled;

		/**
		 * The most holders of one hold taken from Redis, the first included: the tokens
		 * it reserves.
		 */
		private int maxHolders = 64;

		/**
		 * How long after the hold taken from Redis was requested the lock may still be
		 * passed. At most a third of the lease: a lock taken with a shorter lease than
		 * three times this is never passed.
		 */
		private Duration maxTime = Duration.ofMillis(20);

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxHolders() {
			return this.maxHolders;
		}

		public void setMaxHolders(int maxHolders) {
			this.maxHolders = maxHolders;
		}

		public Duration getMaxTime() {
			return this.maxTime;
		}

		public void setMaxTime(Duration maxTime) {
			this.maxTime = maxTime;
		}

	}

	/**
	 * Fair lock settings.
	 */
	public static class Fair {

		/**
		 * How long a waiter for a fair lock keeps its place in the queue without calling
		 * Redis. Waiters call every third of it, so a waiter that died leaves the queue
		 * within this time.
		 */
		private Duration waiterTimeout = Duration.ofSeconds(5);

		public Duration getWaiterTimeout() {
			return this.waiterTimeout;
		}

		public void setWaiterTimeout(Duration waiterTimeout) {
			this.waiterTimeout = waiterTimeout;
		}

	}

	/**
	 * Settings of the Redis WAIT for replicas after each acquisition.
	 */
	public static class ReplicaAcknowledgements {

		/**
		 * Number of replicas that must acknowledge each acquisition before it counts. 0
		 * turns the WAIT off. Not for Redis Cluster.
		 */
		private int replicas;

		/**
		 * How long to wait for the replicas before failing the acquisition; below
		 * spring.data.redis.timeout.
		 */
		private Duration timeout = Duration.ofMillis(100);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of the @DistributedLock aspect.
	 */
	public static class Aspect {

		/**
		 * Order of the @DistributedLock advisor among other advisors; lower runs outside.
		 * Below the order of @Transactional, a transaction commits before its lock is
		 * released.
		 */
		// DistributedLockAspectConfiguration.DEFAULT_ORDER, as a literal for the
		// configuration metadata.
		private int order = 2147483547;

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

	/**
	 * Settings of the distributedlocks actuator endpoint.
	 */
	public static class Actuator {

		/**
		 * Whether the distributedlocks endpoint may force-release a lock, which breaks
		 * mutual exclusion for its current holder.
		 */
		private boolean forceReleaseEnabled;

		public boolean isForceReleaseEnabled() {
			return this.forceReleaseEnabled;
		}

		public void setForceReleaseEnabled(boolean forceReleaseEnabled) {
			this.forceReleaseEnabled = forceReleaseEnabled;
		}

	}

	/**
	 * Settings of the answer of a web application whose request failed because a lock was
	 * not acquired in time.
	 */
	public static class ProblemDetails {

		/**
		 * Whether a LockTimeoutException thrown by a Spring MVC or WebFlux handler is
		 * answered with an RFC 9457 problem detail.
		 */
		private boolean enabled;

		/**
		 * How long the problem detail's Retry-After header tells clients to wait, in
		 * whole seconds rounded up. Unset, no header: a holder's remaining lease is no
		 * estimate of when the lock frees.
		 */
		private @Nullable Duration retryAfter;

		/**
		 * HTTP status of the problem detail: 409 (conflict) or 503 (service unavailable),
		 * or another 4xx or 5xx status.
		 */
		private int status = 409;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getStatus() {
			return this.status;
		}

		public @Nullable Duration getRetryAfter() {
			return this.retryAfter;
		}

		public void setRetryAfter(@Nullable Duration retryAfter) {
			this.retryAfter = retryAfter;
		}

		public void setStatus(int status) {
			this.status = status;
		}

	}

	/**
	 * Leader election: one instance leads each role, holding the role's lock.
	 */
	public static class Leader {

		/**
		 * Id of this instance in leader events and the leaders endpoint. Host name and
		 * process id when not set.
		 */
		private @Nullable String instanceId;

		/**
		 * Lease of a role's lock, renewed every third of it while this instance leads:
		 * how long a leader that died keeps the role. Longer than 150ms.
		 */
		private Duration lease = Duration.ofSeconds(10);

		/**
		 * How long before the end of its lease, by the local clock, a leader whose
		 * renewals did not get through gives leadership up. More than 0, less than half
		 * the lease, and at most two thirds of it less 100ms.
		 */
		private Duration revokeMargin = Duration.ofSeconds(2);

		/**
		 * How long one attempt to take a role's lock waits before the next; a release
		 * wakes it at once.
		 */
		private Duration waitTime = Duration.ofSeconds(1);

		/**
		 * How long to wait before trying again when Redis could not be reached.
		 */
		private Duration retryInterval = Duration.ofSeconds(1);

		/**
		 * Roles this instance contends for, by name, each with optional settings of its
		 * own.
		 */
		private Map<String, Role> roles = new LinkedHashMap<>();

		public @Nullable String getInstanceId() {
			return this.instanceId;
		}

		public void setInstanceId(@Nullable String instanceId) {
			this.instanceId = instanceId;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public Duration getRevokeMargin() {
			return this.revokeMargin;
		}

		public void setRevokeMargin(Duration revokeMargin) {
			this.revokeMargin = revokeMargin;
		}

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = waitTime;
		}

		public Duration getRetryInterval() {
			return this.retryInterval;
		}

		public void setRetryInterval(Duration retryInterval) {
			this.retryInterval = retryInterval;
		}

		public Map<String, Role> getRoles() {
			return this.roles;
		}

		public void setRoles(Map<String, Role> roles) {
			this.roles = roles;
		}

	}

	/**
	 * One role of leader election.
	 */
	public static class Role {

		/**
		 * Whether this instance contends for the role; when not, its @LeaderOnly methods
		 * are skipped here.
		 */
		private boolean enabled = true;

		/**
		 * Lease of the role's lock, instead of the leader lease.
		 */
		private @Nullable Duration lease;

		/**
		 * Revoke margin of the role, instead of the leader revoke margin.
		 */
		private @Nullable Duration revokeMargin;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Duration getLease() {
			return this.lease;
		}

		public void setLease(@Nullable Duration lease) {
			this.lease = lease;
		}

		public @Nullable Duration getRevokeMargin() {
			return this.revokeMargin;
		}

		public void setRevokeMargin(@Nullable Duration revokeMargin) {
			this.revokeMargin = revokeMargin;
		}

	}

}
