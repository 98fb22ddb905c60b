package io.github.distributedlock.redis.server;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import io.github.distributedlock.redis.script.LockKind;

/**
 * Resolves a {@link LockRequest} into the {@link LockSpec} an acquisition runs on: the
 * {@link LockDefaults} for what it leaves unset, its {@link LockKind}, its keys and
 * channels. Thread-safe.
 */
public final class LockRequestResolver {

	private final LockDefaults defaults;

	private final LockKeys keys;

	private final boolean renewLeaselessLocks;

	private final boolean pubSub;

	private final RedisServerFeatures server;

	private final long fairWaiterTimeoutMillis;

	/**
	 * @param renewLeaselessLocks whether locks requested without a lease are auto-renewed
	 * @param pubSub whether a listener container is there to wait on channels
	 */
	public LockRequestResolver(LockDefaults defaults, LockKeys keys, boolean renewLeaselessLocks, boolean pubSub,
			RedisServerFeatures server, long fairWaiterTimeoutMillis) {
		this.defaults = defaults;
		this.keys = keys;
		this.renewLeaselessLocks = renewLeaselessLocks;
		this.pubSub = pubSub;
		this.server = server;
		this.fairWaiterTimeoutMillis = fairWaiterTimeoutMillis;
	}

	/**
	 * Resolve a request.
	 * @throws LockAccessException if its wait strategy needs pub/sub and there is none
	 * @throws IllegalStateException if it waits for keyspace events on a Cluster
	 */
	public LockSpec resolve(LockRequest request) {
		LockName name = request.name();
		Duration lease = (request.lease() != null) ? request.lease() : this.defaults.lease();
		boolean autoRenew = (request.autoRenew() != null) ? request.autoRenew()
				: (request.lease() == null && this.renewLeaselessLocks);
		Duration waitTime = (request.waitTime() != null) ? request.waitTime() : this.defaults.waitTime();
		WaitStrategy strategy = strategy(request);
		boolean reentrant = (request.reentrant() != null) ? request.reentrant() : this.defaults.reentrant();
		boolean progressAware = (request.progressAwareTimeout() != null) ? request.progressAwareTimeout()
				: this.defaults.progressAwareTimeout();
		if (strategy != WaitStrategy.POLLING && !this.pubSub) {
			throw new LockAccessException(name,
					"wait strategy " + strategy + " needs pub/sub, which this template was built without", null);
		}
		if (strategy == WaitStrategy.KEYSPACE_EVENTS && !this.server.keyspaceEventsChecked()) {
			if (this.server.isCluster()) {
				throw KeyspaceNotifications.onCluster(name);
			}
			this.server.checkKeyspaceEvents();
		}
		LockKind kind = kind(request);
		if (strategy == WaitStrategy.KEYSPACE_EVENTS && !kind.inLockHash()) {
			strategy = WaitStrategy.PUBSUB;
		}
		String lockKey = this.keys.lock(name);
		String releaseChannel = kind.releaseChannel(lockKey);
		WaitMode wait = WaitMode.of(strategy, lockKey, releaseChannel, this.keys,
				this.defaults.pollInterval().toNanos());
		return new LockSpec(name, lockKey, releaseChannel, kind, request.permits(),
				wait.channels().get(0) + kind.queueSuffix(), lease.toMillis(), waitNanos(waitTime), progressAware,
				autoRenew, (request.holdAtLeast() != null) ? request.holdAtLeast().toMillis() : 0,
				this.fairWaiterTimeoutMillis, wait, reentrant, request.origin());
	}

	/**
	 * Resolve the requests of a multi-lock, in the order asked.
	 * @throws IllegalArgumentException if one is a read lock, a permit or a fair lock
	 */
	public List<LockSpec> resolveMultiLockable(List<LockRequest> requests) {
		return requests.stream().map((request) -> multiLockable(resolve(request))).toList();
	}

	/**
	 * Return the resolved request, checking that a multi-lock may take it.
	 * @throws IllegalArgumentException if it is a read lock, a permit or a fair lock
	 */
	public static LockSpec multiLockable(LockSpec spec) {
		if (!spec.kind().multiLockable()) {
			throw new IllegalArgumentException("Lock '" + spec.name()
					+ "': a multi-lock takes plain exclusive locks only, not read locks, permits or fair locks");
		}
		return spec;
	}

	public WaitStrategy strategy(LockRequest request) {
		return (request.waitStrategy() != null) ? request.waitStrategy() : this.defaults.waitStrategy();
	}

	private static LockKind kind(LockRequest request) {
		if (request.permits() > 0) {
			return LockKind.PERMIT;
		}
		if (request.mode() == LockMode.READ) {
			return LockKind.READ;
		}
		return request.fair() ? LockKind.FAIR : LockKind.EXCLUSIVE;
	}

	private static long waitNanos(Duration wait) {
		// Anything near the representable maximum means "indefinitely".
		if (wait.compareTo(Duration.ofDays(365L * 100)) >= 0) {
			return -1;
		}
		return wait.toNanos();
	}

}
