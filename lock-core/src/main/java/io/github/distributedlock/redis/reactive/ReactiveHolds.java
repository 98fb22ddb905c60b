package io.github.distributedlock.redis.reactive;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.server.LockListeners;
import reactor.core.scheduler.Scheduler;

/**
 * The reactive template's holds: turns grants into handles, renewed as any, tells the
 * listeners, and releases grants that nobody will use. Thread-safe.
 */
public final class ReactiveHolds {

	private final Set<ReactiveRedisLockHandle> holds = ConcurrentHashMap.newKeySet();

	private final ReactiveLockCommands commands;

	private final Scheduler timer;

	private final LockListeners listeners;

	public ReactiveHolds(ReactiveLockCommands commands, Scheduler timer, LockListeners listeners) {
		this.commands = commands;
		this.timer = timer;
		this.listeners = listeners;
	}

	public ReactiveLockHandle hold(Grant grant) {
		ReactiveRedisLockHandle handle = new ReactiveRedisLockHandle(grant, this.commands, this.timer,
				this.holds::remove, this.listeners);
		this.holds.add(handle);
		this.listeners.acquired(handle.lockContext());
		return handle;
	}

	/**
	 * Release a grant that reached no subscriber, in the background.
	 */
	public void releaseUnused(Grant grant) {
		this.commands.release(grant, 0).subscribe(null, (ex) -> {
		});
	}

	public void notAcquired(LockTimeoutException timeout) {
		this.listeners.notAcquired(timeout.getLockName(), timeout.getWaited());
	}

	/**
	 * Return each hold neither released nor lost, whose lease is not over, oldest first.
	 */
	public List<HeldLock> snapshot() {
		long now = System.nanoTime();
		return this.holds.stream()
			.filter((handle) -> handle.isLive(now))
			.map(ReactiveRedisLockHandle::snapshot)
			.sorted(Comparator.comparing(HeldLock::since))
			.toList();
	}

	public void stopRenewals() {
		this.holds.forEach(ReactiveRedisLockHandle::stopRenewal);
	}

}
