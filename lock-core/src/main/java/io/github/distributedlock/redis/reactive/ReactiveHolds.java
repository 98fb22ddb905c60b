package io.github.distributedlock.redis.reactive;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.Renewals;
import io.github.distributedlock.redis.server.LockListeners;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;

/**
 * The reactive template's holds: turns grants into handles, renewed by the template's
 * {@link Renewals} if auto-renewed, and tells the listeners. Thread-safe.
 */
public final class ReactiveHolds {

	private final Set<ReactiveRedisLockHandle> holds = ConcurrentHashMap.newKeySet();

	private final DriverCommands driver;

	private final ReactiveLockCommands commands;

	private final Renewals renewals;

	private final LockListeners listeners;

	private final boolean handOff;

	private final ReactiveRedisConnectionFactory connectionFactory;

	private volatile @Nullable Boolean cluster;

	/**
	 * @param driver runs the scripts of the holds, on the template's port
	 */
	public ReactiveHolds(DriverCommands driver, ReactiveLockCommands commands,
			ReactiveRedisConnectionFactory connectionFactory, LockListeners listeners, boolean handOff) {
		this.driver = driver;
		this.commands = commands;
		this.connectionFactory = connectionFactory;
		this.renewals = new Renewals(driver.port(), this::isCluster);
		this.listeners = listeners;
		this.handOff = handOff;
	}

	ReactiveRedisLockHandle handle(Grant grant) {
		ReactiveRedisLockHandle handle = new ReactiveRedisLockHandle(grant, this.driver.port(), this.commands, this,
				this.listeners, this.handOff);
		this.holds.add(handle);
		if (grant.spec().autoRenew()) {
			this.renewals.watch(handle.hold());
		}
		this.listeners.acquired(handle.lockContext());
		return handle;
	}

	/**
	 * Forget a hold that was released or lost.
	 */
	void ended(ReactiveRedisLockHandle handle) {
		this.holds.remove(handle);
		this.renewals.unwatch(handle.hold());
	}

	void notAcquired(LockTimeoutException timeout) {
		this.listeners.notAcquired(timeout.getLockName(), timeout.getWaited());
	}

	/**
	 * Return each hold neither released nor lost, whose lease is not over, oldest first.
	 */
	public List<HeldLock> snapshot() {
		long now = System.nanoTime();
		return this.holds.stream()
			.filter((handle) -> handle.hold().isLive(now))
			.map(ReactiveRedisLockHandle::snapshot)
			.sorted(Comparator.comparing(HeldLock::since))
			.toList();
	}

	/**
	 * Stop renewing, and forget every hold.
	 */
	public void stopRenewals() {
		this.renewals.close();
		this.holds.clear();
	}

	/**
	 * Return whether Redis is a Cluster, found the first time it is asked.
	 */
	boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			ReactiveRedisConnection connection = this.connectionFactory.getReactiveConnection();
			cluster = connection instanceof ReactiveRedisClusterConnection;
			connection.closeLater().subscribe(null, (ex) -> {
			});
			this.cluster = cluster;
		}
		return cluster;
	}

}
