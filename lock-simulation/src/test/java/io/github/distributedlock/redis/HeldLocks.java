package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HoldLife;
import io.github.distributedlock.redis.script.ExclusiveKind;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * The holds one acquisition won in a run of multi-locks, one lock or several, kept as the
 * engine's handles keep them ({@code MultiLockHandle} holds one {@code RedisLockHandle}
 * per lock):
 * <ul>
 * <li>renewed as the {@code LeaseWatchdog} renews them: when
 * {@link HoldLife#nextRenewalNanos()} comes, every live hold due in one {@code renew.lua}
 * batch (a multi-lock's holds share their grant's send time and lease, so they fall due
 * together), each hold's reply fed to its own {@link HoldLife};</li>
 * <li>extended lock by lock, as {@code MultiLockHandle.extend} does: each
 * {@code extend.lua} sent once the reply of the one before was read, from its own send
 * time; a hold found gone ends the extension there (the handle throws);</li>
 * <li>released in reverse order, each once the reply of the one before was read, each
 * passing what is left of its own minimum hold ({@link HoldLife#minimumHoldLeftMillis}),
 * as {@code RedisLockHandle.close} does; a release that keeps the lock is recorded as a
 * {@link KeptLock}.</li>
 * </ul>
 * The holder's thread extends and releases, one thing at a time: a release waits for an
 * extension or a re-entry in flight, and for the holds nested in these.
 */
final class HeldLocks {

	private final MultiLockRun run;

	private final String holder;

	private final String owner;

	private final List<ClientHold> holds;

	// What the holder's thread is busy with (an extension, a re-entry, a nested hold not
	// yet released), and what it does next once it is not.
	private int busy;

	private @Nullable Runnable whenIdle;

	HeldLocks(MultiLockRun run, String holder, String owner, List<ClientHold> holds) {
		this.run = run;
		this.holder = holder;
		this.owner = owner;
		this.holds = List.copyOf(holds);
	}

	List<ClientHold> holds() {
		return this.holds;
	}

	/**
	 * Return the hold of a lock among these, or {@code null}.
	 */
	@Nullable ClientHold of(String lockKey) {
		return this.holds.stream().filter((hold) -> hold.key().equals(lockKey)).findFirst().orElse(null);
	}

	/**
	 * Renew the holds when the watchdog would, until they are released or lost.
	 */
	void renewFromNow() {
		long now = this.run.nanos();
		// A hold lost or released is no longer watched: the others are renewed on.
		this.holds.stream()
			.filter((hold) -> hold.live(now))
			.mapToLong((hold) -> hold.life.nextRenewalNanos())
			.min()
			.ifPresent(this::renewAt);
	}

	private void renewAt(long atNanos) {
		this.run.at(Math.max(0, atNanos - this.run.nanos()), this.holder + " renews " + this.holds, () -> {
			long sent = this.run.nanos();
			List<ClientHold> due = this.holds.stream()
				.filter((hold) -> hold.live(sent) && hold.life.nextRenewalNanos() - sent <= 0)
				.toList();
			if (due.isEmpty()) {
				return;
			}
			ScriptCall call = ExclusiveKind.renew(due.stream().map(ClientHold::grant).toList());
			this.run.send(this.holder, call, "renewal of " + due, () -> {
			}, (reply, ran) -> {
				List<?> results = (List<?>) reply;
				boolean renewed = false;
				for (int i = 0; i < due.size(); i++) {
					ClientHold hold = due.get(i);
					if (confirmed(hold, (Long) results.get(i), sent, -1)) {
						this.run.counted(MultiLockRun.Counted.RENEWED);
						renewed = true;
					}
				}
				if (renewed) {
					renewFromNow();
				}
			});
		});
	}

	/**
	 * Extend every hold to {@code leaseMillis}, one after the other, as the holder's
	 * thread does.
	 */
	void extend(long leaseMillis) {
		this.busy++;
		extendFrom(0, leaseMillis);
	}

	private void extendFrom(int index, long leaseMillis) {
		long sent = this.run.nanos();
		if (index >= this.holds.size() || !this.holds.get(index).live(sent)) {
			idle();
			return;
		}
		ClientHold hold = this.holds.get(index);
		Grant grant = hold.grant;
		ScriptCall call = grant.spec()
			.kind()
			.extend(grant.spec(), this.owner, grant.token(), grant.hold(), leaseMillis);
		this.run.send(this.holder, call, "extension of " + hold + " to " + leaseMillis + " ms", () -> {
		}, (reply, ran) -> {
			if (confirmed(hold, (Long) reply, sent, leaseMillis)) {
				this.run.counted(MultiLockRun.Counted.EXTENDED);
				extendFrom(index + 1, leaseMillis);
			}
			else {
				idle();
			}
		});
	}

	/**
	 * Record the reply to a renewal ({@code leaseMillis} below 0) or an extension sent at
	 * {@code sentNanos}, as the handle does.
	 * @return whether the hold is still there
	 */
	private boolean confirmed(ClientHold hold, long result, long sentNanos, long leaseMillis) {
		if (result < 0) {
			// The handle reports the lease lost: the work on it stops.
			if (!hold.lost && !hold.released) {
				hold.lost = true;
				this.run.checks().lost(hold);
			}
			return false;
		}
		if (!hold.live(this.run.nanos())) {
			// Its deadline passed first: the holder was told, and stopped.
			return false;
		}
		if (leaseMillis < 0) {
			hold.life.renewed(sentNanos);
		}
		else {
			hold.life.extended(sentNanos, leaseMillis);
		}
		this.run.checks().extended(hold);
		return true;
	}

	/**
	 * Note that the holder's thread is busy: with a re-entry in flight, or a hold nested
	 * in these.
	 */
	void busy() {
		this.busy++;
	}

	/**
	 * Note that what the holder's thread was busy with is over: a release that waited for
	 * it goes on.
	 */
	void idle() {
		this.busy--;
		Runnable next = this.whenIdle;
		if (this.busy == 0 && next != null) {
			this.whenIdle = null;
			next.run();
		}
	}

	/**
	 * Release every hold in reverse order, each once the reply of the one before was
	 * read, once the holder's thread is free; then run {@code then}.
	 */
	void release(Runnable then) {
		if (this.busy > 0) {
			this.whenIdle = () -> release(then);
			return;
		}
		releaseFrom(this.holds.size() - 1, then);
	}

	private void releaseFrom(int index, Runnable then) {
		if (index < 0) {
			then.run();
			return;
		}
		ClientHold hold = this.holds.get(index);
		Grant grant = hold.grant;
		long now = this.run.nanos();
		this.run.checks().released(hold);
		long keepMillis = hold.life.minimumHoldLeftMillis(now);
		// The end of the minimum hold the engine promises (acquired + minimum hold),
		// which the lease caps: Redis keeps the lock at least until the hold's deadline.
		long keptUntil = Math.min(hold.acquiredNanos + grant.spec().holdAtLeastMillis() * LockSimulation.MS,
				hold.endNanos());
		KeptLock kept = (keepMillis > 0 && keptUntil - now > 0) ? this.run.checks()
			.kept(hold, new KeptLock(this.holder, this.owner, grant.token(), keptUntil, keepMillis, hold.endNanos()))
				: null;
		// The planted bug passes nothing on but for the multi-lock's first lock (its
		// name); the promise, above, stays the engine's.
		boolean skips = this.run.clientBug() == LockSimulation.ClientBug.MULTI_KEEPS_FIRST_ONLY && index > 0;
		ScriptCall call = grant.spec()
			.kind()
			.release(grant.spec(), this.owner, grant.token(), grant.hold(), true, skips ? 0 : keepMillis);
		this.run.send(this.holder, call,
				"release of " + hold + ((keepMillis > 0) ? " keeping " + keepMillis + " ms" : ""), () -> {
					if (kept != null && kept.ranNanos < 0) {
						kept.ranNanos = this.run.nanos();
					}
				}, (reply, ran) -> {
					if (kept != null) {
						this.run.checks().keptRead(hold, kept, (Long) reply >= 0);
					}
					releaseFrom(index - 1, then);
				});
	}

}
