package io.github.distributedlock.redis.blocking;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import io.github.distributedlock.redis.core.HashSlots;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the leases of auto-renewed holds alive while they are held: every lease/3, on one
 * scheduler thread per template, in batched scripts (one per hash slot on a Cluster, one
 * for everything otherwise). There is no thread or timer per lock.
 * <p>
 * A renewal that finds the lock gone or taken marks the hold lost. A renewal that fails
 * (Redis down) is retried until the lease would have ended, and only then is the hold
 * reported lost. Each renewal is announced to the {@link HoldRegistry} before it is sent
 * and reported after, so that a renewal in flight or without a reply keeps the owner
 * counted. Renewal stops at release and at shutdown; if the process dies, the lease
 * simply ends.
 */
public final class LeaseWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	private static final int MAX_BATCH = 500;

	private final Set<RedisLockHandle> watched = ConcurrentHashMap.newKeySet();

	private final LockCommands commands;

	private final BooleanSupplier cluster;

	private final ScheduledThreadPoolExecutor scheduler;

	private final ReentrantLock scheduling = new ReentrantLock();

	private @Nullable ScheduledFuture<?> next;

	private long nextAtNanos;

	private volatile boolean closed;

	public LeaseWatchdog(LockCommands commands, BooleanSupplier cluster) {
		this.commands = commands;
		this.cluster = cluster;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "distributed-lock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	void watch(RedisLockHandle hold) {
		if (this.closed) {
			return;
		}
		this.watched.add(hold);
		scheduleBy(hold.nextRenewalNanos());
	}

	void unwatch(RedisLockHandle hold) {
		this.watched.remove(hold);
	}

	boolean watches(RedisLockHandle hold) {
		return this.watched.contains(hold);
	}

	int size() {
		return this.watched.size();
	}

	/**
	 * Run a task once on the watchdog's thread after a delay, unless closed.
	 * @return whether the task was scheduled
	 */
	boolean runLater(Runnable task, long delayNanos) {
		this.scheduling.lock();
		try {
			if (this.closed) {
				return false;
			}
			this.scheduler.schedule(() -> {
				try {
					task.run();
				}
				catch (RuntimeException ex) {
					logger.warn("Lock housekeeping failed", ex);
				}
			}, delayNanos, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (RejectedExecutionException ex) {
			// Closed meanwhile.
			return false;
		}
		finally {
			this.scheduling.unlock();
		}
	}

	private void scheduleBy(long dueNanos) {
		this.scheduling.lock();
		try {
			if (this.closed) {
				return;
			}
			ScheduledFuture<?> current = this.next;
			if (current != null && !current.isDone() && this.nextAtNanos - dueNanos <= 0) {
				return;
			}
			if (current != null) {
				current.cancel(false);
			}
			this.nextAtNanos = dueNanos;
			this.next = this.scheduler.schedule(this::renewDue, Math.max(0, dueNanos - System.nanoTime()),
					TimeUnit.NANOSECONDS);
		}
		finally {
			this.scheduling.unlock();
		}
	}

	private void renewDue() {
		long now = System.nanoTime();
		List<RedisLockHandle> due = new ArrayList<>();
		for (RedisLockHandle hold : this.watched) {
			if (hold.nextRenewalNanos() - now <= 0) {
				due.add(hold);
			}
		}
		List<RedisLockHandle> locks = new ArrayList<>(due.size());
		for (RedisLockHandle hold : due) {
			if (hold.spec().kind().inLockHash()) {
				locks.add(hold);
			}
			else {
				renewAlone(hold);
			}
		}
		for (List<RedisLockHandle> batch : batches(locks)) {
			renew(batch);
		}
		this.scheduling.lock();
		try {
			this.next = null;
		}
		finally {
			this.scheduling.unlock();
		}
		RedisLockHandle first = null;
		for (RedisLockHandle hold : this.watched) {
			if (first == null || hold.nextRenewalNanos() - first.nextRenewalNanos() < 0) {
				first = hold;
			}
		}
		if (first != null) {
			scheduleBy(first.nextRenewalNanos());
		}
	}

	private List<List<RedisLockHandle>> batches(List<RedisLockHandle> due) {
		if (due.isEmpty()) {
			return List.of();
		}
		Map<Integer, List<RedisLockHandle>> groups = new LinkedHashMap<>();
		boolean bySlot = this.cluster.getAsBoolean();
		for (RedisLockHandle hold : due) {
			int group = bySlot ? HashSlots.slot(hold.spec().lockKey()) : 0;
			groups.computeIfAbsent(group, (slot) -> new ArrayList<>()).add(hold);
		}
		List<List<RedisLockHandle>> batches = new ArrayList<>();
		for (List<RedisLockHandle> group : groups.values()) {
			for (int i = 0; i < group.size(); i += MAX_BATCH) {
				batches.add(group.subList(i, Math.min(group.size(), i + MAX_BATCH)));
			}
		}
		return batches;
	}

	/**
	 * Renew a reader or permit, which live in sorted sets and are not batched.
	 */
	private void renewAlone(RedisLockHandle hold) {
		long sentNanos = System.nanoTime();
		hold.renewing();
		long result;
		try {
			result = this.commands.extend(hold.grant(), hold.spec().leaseMillis());
		}
		catch (RuntimeException ex) {
			failed(List.of(hold), ex);
			return;
		}
		if (result == 1) {
			hold.renewed(sentNanos);
		}
		else {
			hold.notRenewed();
			if (this.watched.remove(hold)) {
				hold.markLost(true);
			}
		}
	}

	private void failed(List<RedisLockHandle> batch, RuntimeException ex) {
		for (RedisLockHandle hold : batch) {
			if (hold.renewalFailed(System.nanoTime())) {
				// Retried until the lease would have ended: from here on nobody can rely
				// on it.
				this.watched.remove(hold);
				hold.markLost(false);
			}
		}
		logger.warn("Could not renew " + batch.size() + " lock lease(s); retrying until they would end", ex);
	}

	private void renew(List<RedisLockHandle> batch) {
		long sentNanos = System.nanoTime();
		for (RedisLockHandle hold : batch) {
			hold.renewing();
		}
		List<Long> results;
		try {
			results = this.commands.renew(batch.stream().map(RedisLockHandle::grant).toList());
		}
		catch (RuntimeException ex) {
			failed(batch, ex);
			return;
		}
		for (int i = 0; i < batch.size(); i++) {
			RedisLockHandle hold = batch.get(i);
			if (results.get(i) == 1) {
				hold.renewed(sentNanos);
			}
			else {
				hold.notRenewed();
				if (this.watched.remove(hold)) {
					hold.markLost(true);
				}
			}
		}
	}

	@Override
	public void close() {
		this.closed = true;
		this.watched.clear();
		this.scheduler.shutdownNow();
	}

}
