package io.github.distributedlock.redis;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import reactor.core.scheduler.Scheduler;

/**
 * The reactive template's holds: turns grants into handles, renewed as any, tells the
 * listeners, and releases grants that nobody will use. Thread-safe.
 */
final class ReactiveHolds {

	private final Set<ReactiveRedisLockHandle> holds = ConcurrentHashMap.newKeySet();

	private final ReactiveLockCommands commands;

	private final Scheduler timer;

	private final LockListeners listeners;

	ReactiveHolds(ReactiveLockCommands commands, Scheduler timer, LockListeners listeners) {
		this.commands = commands;
		this.timer = timer;
		this.listeners = listeners;
	}

	ReactiveLockHandle hold(Grant grant) {
		ReactiveRedisLockHandle handle = new ReactiveRedisLockHandle(grant, this.commands, this.timer,
				this.holds::remove, this.listeners);
		this.holds.add(handle);
		this.listeners.acquired(handle.lockContext());
		return handle;
	}

	/**
	 * Release a grant that reached no subscriber, in the background.
	 */
	void releaseUnused(Grant grant) {
		this.commands.release(grant, 0).subscribe(null, (ex) -> {
		});
	}

	void notAcquired(LockTimeoutException timeout) {
		this.listeners.notAcquired(timeout.getLockName(), timeout.getWaited());
	}

	/**
	 * Return each hold neither released nor lost, whose lease is not over, oldest first.
	 */
	List<HeldLock> snapshot() {
		long now = System.nanoTime();
		return this.holds.stream()
			.filter((handle) -> handle.isLive(now))
			.map(ReactiveRedisLockHandle::snapshot)
			.sorted(Comparator.comparing(HeldLock::since))
			.toList();
	}

	void stopRenewals() {
		this.holds.forEach(ReactiveRedisLockHandle::stopRenewal);
	}

}
