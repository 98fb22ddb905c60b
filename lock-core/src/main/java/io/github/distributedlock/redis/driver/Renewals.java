package io.github.distributedlock.redis.driver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.function.Supplier;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HashSlots;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog: renews the leases of auto-renewed holds every lease/3 while they are
 * held, on one timer of its {@link LockPort}, in batched scripts (one per hash slot on a
 * Cluster, at most {@value #MAX_BATCH} holds each); readers and permits, which live in
 * sorted sets, are extended one by one. A hold has at most one renewal in flight.
 * <p>
 * A renewal that finds the lock gone or taken makes the hold lost; one that gets no
 * answer is tried again until the lease would have ended, and only then is the hold lost
 * ({@link LockHold#renewalFailed}). If the process dies, the lease ends. Thread-safe.
 */
public final class Renewals implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Renewals.class);

	static final int MAX_BATCH = 500;

	// A multi-lock's holds share one id: its locks' keys tell them apart.
	private static final Comparator<LockHold> BY_ID = Comparator.comparing((LockHold hold) -> hold.grant().hold())
		.thenComparing((hold) -> hold.spec().lockKey())
		.thenComparingLong((hold) -> hold.grant().token());

	private final LockPort port;

	private final BooleanSupplier cluster;

	private final Set<LockHold> watched = ConcurrentHashMap.newKeySet();

	// Holds whose renewal was sent and not answered yet.
	private final Set<LockHold> renewing = ConcurrentHashMap.newKeySet();

	private final Object scheduling = new Object();

	private LockPort.@Nullable Cancellable next;

	private long nextAtNanos;

	// Counts the timers set: one that fires after a later one replaced it does nothing.
	private long timers;

	private boolean closed;

	/**
	 * @param cluster whether Redis is a Cluster, where one script renews the holds of one
	 * hash slot only
	 */
	public Renewals(LockPort port, BooleanSupplier cluster) {
		this.port = port;
		this.cluster = cluster;
	}

	/**
	 * Renew the hold from its next renewal time on, until it is released or lost, or
	 * {@link #unwatch} is called.
	 */
	public void watch(LockHold hold) {
		synchronized (this.scheduling) {
			if (this.closed) {
				return;
			}
			this.watched.add(hold);
		}
		scheduleBy(hold.nextRenewalNanos());
	}

	public void unwatch(LockHold hold) {
		this.watched.remove(hold);
	}

	public boolean watches(LockHold hold) {
		return this.watched.contains(hold);
	}

	private void scheduleBy(long dueNanos) {
		synchronized (this.scheduling) {
			if (this.closed) {
				return;
			}
			LockPort.Cancellable current = this.next;
			if (current != null) {
				if (this.nextAtNanos - dueNanos <= 0) {
					return;
				}
				current.cancel();
			}
			this.nextAtNanos = dueNanos;
			long timer = ++this.timers;
			this.next = this.port.schedule(() -> renewDue(timer), Math.max(0, dueNanos - this.port.nanoTime()));
		}
	}

	private void renewDue(long timer) {
		synchronized (this.scheduling) {
			if (this.closed || timer != this.timers) {
				return;
			}
			this.next = null;
		}
		long now = this.port.nanoTime();
		List<LockHold> due = new ArrayList<>();
		for (LockHold hold : this.watched) {
			if (hold.isReleased() || hold.isLost()) {
				this.watched.remove(hold);
			}
			else if (hold.nextRenewalNanos() - now <= 0 && this.renewing.add(hold)) {
				due.add(hold);
			}
		}
		// The set's order is the holds' identity hashes, which differ from run to run: in
		// the order of their ids instead, a seed of the simulation sends the same
		// renewals.
		due.sort(BY_ID);
		List<LockHold> batched = new ArrayList<>();
		for (LockHold hold : due) {
			if (hold.spec().kind().inLockHash()) {
				batched.add(hold);
			}
			else {
				renewAlone(hold);
			}
		}
		List<List<LockHold>> batches = List.of();
		try {
			batches = batches(batched);
		}
		catch (RuntimeException ex) {
			// Could not tell whether Redis is a Cluster: nothing was sent, so the holds
			// are tried again as after an unanswered renewal, with no command in flight.
			failedAll(batched, ex, false);
		}
		for (List<LockHold> batch : batches) {
			renew(batch);
		}
		scheduleFirst();
	}

	private void scheduleFirst() {
		LockHold first = null;
		for (LockHold hold : this.watched) {
			if (!this.renewing.contains(hold)
					&& (first == null || hold.nextRenewalNanos() - first.nextRenewalNanos() < 0)) {
				first = hold;
			}
		}
		if (first != null) {
			scheduleBy(first.nextRenewalNanos());
		}
	}

	private List<List<LockHold>> batches(List<LockHold> due) {
		if (due.isEmpty()) {
			return List.of();
		}
		Map<Integer, List<LockHold>> groups = new LinkedHashMap<>();
		boolean bySlot = this.cluster.getAsBoolean();
		for (LockHold hold : due) {
			int group = bySlot ? HashSlots.slot(hold.spec().lockKey()) : 0;
			groups.computeIfAbsent(group, (slot) -> new ArrayList<>()).add(hold);
		}
		List<List<LockHold>> batches = new ArrayList<>();
		for (List<LockHold> group : groups.values()) {
			for (int i = 0; i < group.size(); i += MAX_BATCH) {
				batches.add(group.subList(i, Math.min(group.size(), i + MAX_BATCH)));
			}
		}
		return batches;
	}

	private void renewAlone(LockHold hold) {
		Grant grant = hold.grant();
		send(List.of(hold),
				() -> hold.spec()
					.kind()
					.extend(hold.spec(), grant.owner(), grant.token(), grant.hold(), hold.spec().leaseMillis()),
				(sentNanos) -> Completion.of(
						(reply) -> ended(hold, sentNanos, (reply instanceof Number number) ? number.longValue() : -1),
						(error) -> failedAll(List.of(hold), error, true)));
	}

	private void renew(List<LockHold> batch) {
		send(batch, () -> LockKind.renew(batch.stream().map(LockHold::grant).toList()),
				(sentNanos) -> Completion.of((reply) -> {
					if (!(reply instanceof List<?> results) || results.size() != batch.size()) {
						failedAll(batch, new LockAccessException(batch.get(0).name(),
								"unexpected reply from the renew script: " + reply, null), true);
						return;
					}
					for (int i = 0; i < batch.size(); i++) {
						Object result = results.get(i);
						ended(batch.get(i), sentNanos, (result instanceof Number number) ? number.longValue() : -1);
					}
				}, (error) -> failedAll(batch, error, true)));
	}

	/**
	 * Send one renewal of the holds. A script or port that throws counts as a failed
	 * renewal, so that no hold stays marked as renewing, never renewed again nor lost.
	 * @param reply the reply's handler, given when the renewal was sent
	 */
	private void send(List<LockHold> holds, Supplier<ScriptCall> script,
			LongFunction<Completion<@Nullable Object>> reply) {
		ScriptCall call;
		try {
			call = script.get();
		}
		catch (RuntimeException ex) {
			failedAll(holds, ex, false);
			return;
		}
		long sentNanos = this.port.nanoTime();
		holds.forEach(LockHold::renewing);
		try {
			this.port.run(holds.get(0).name(), "renew", call, reply.apply(sentNanos));
		}
		catch (RuntimeException ex) {
			failedAll(holds, ex, true);
		}
	}

	private void ended(LockHold hold, long sentNanos, long result) {
		if (result == 1) {
			hold.renewed(sentNanos, this.port.nanoTime());
		}
		else {
			this.watched.remove(hold);
			hold.notRenewed();
		}
		next(hold);
	}

	private void next(LockHold hold) {
		this.renewing.remove(hold);
		if (this.watched.contains(hold)) {
			scheduleBy(hold.nextRenewalNanos());
		}
	}

	/**
	 * @param sent whether the renewal was sent, so that Redis may still run it
	 */
	private void failedAll(List<LockHold> batch, Throwable error, boolean sent) {
		for (LockHold hold : batch) {
			if (hold.renewalFailed(this.port.nanoTime(), sent)) {
				// Tried until the lease would have ended: nobody can rely on it now.
				this.watched.remove(hold);
			}
			next(hold);
		}
		logger.warn("Could not renew " + batch.size() + " lock lease(s); retrying until they would end", error);
	}

	/**
	 * Stop renewing: the leases end on their own.
	 */
	@Override
	public void close() {
		LockPort.Cancellable current;
		synchronized (this.scheduling) {
			this.closed = true;
			current = this.next;
			this.next = null;
		}
		if (current != null) {
			current.cancel();
		}
		this.watched.clear();
	}

}
