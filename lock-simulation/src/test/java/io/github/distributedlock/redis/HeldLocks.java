package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HoldLife;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.Renewals;
import org.jspecify.annotations.Nullable;

/**
 * The holds one acquisition won in a run of multi-locks, one lock or several, each the
 * engine's own {@code LockHold} ({@link ClientHold}), kept as the engine's handles keep
 * them ({@code MultiLockHandle} holds one {@code RedisLockHandle} per lock):
 * <ul>
 * <li>renewed by the holder's {@link Renewals}, the engine's watchdog (a multi-lock's
 * holds share their grant's send time and lease, so they fall due together, in one
 * {@code renew.lua} batch);</li>
 * <li>extended lock by lock, as {@code MultiLockHandle.extend} does: each extension sent
 * once the reply of the one before was read; a hold found gone ends the extension there
 * (the handle throws);</li>
 * <li>released in reverse order, each once the reply of the one before was read, as
 * {@code MultiLockHandle.releaseAll} does; a release that keeps the lock for what is left
 * of its minimum hold is recorded as a {@link KeptLock}.</li>
 * </ul>
 * The holder's thread extends and releases, one thing at a time: a release waits for an
 * extension or a re-entry in flight, and for the holds nested in these.
 */
final class HeldLocks {

	private final MultiLockRun run;

	private final String holder;

	private final String owner;

	private final List<ClientHold> holds;

	// Where the holds' extensions and releases run, and their watchdog.
	private final SimulatedPort port;

	private final Renewals renewals;

	// What the holder's thread is busy with (an extension, a re-entry, a nested hold not
	// yet released), and what it does next once it is not.
	private int busy;

	private @Nullable Runnable whenIdle;

	HeldLocks(MultiLockRun run, String holder, String owner, List<ClientHold> holds, SimulatedPort port,
			Renewals renewals) {
		this.run = run;
		this.holder = holder;
		this.owner = owner;
		this.holds = List.copyOf(holds);
		this.port = port;
		this.renewals = renewals;
	}

	/**
	 * Return the holds of a re-entry nested in these, kept the same way.
	 */
	HeldLocks nested(List<ClientHold> inner) {
		return new HeldLocks(this.run, this.holder, this.owner, inner, this.port, this.renewals);
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
	 * Have the watchdog renew the live holds, until they are released or lost.
	 */
	void renewFromNow() {
		long now = this.run.nanos();
		this.holds.stream().filter((hold) -> hold.live(now)).forEach((hold) -> this.renewals.watch(hold.hold));
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
		if (index >= this.holds.size() || !this.holds.get(index).live(this.run.nanos())) {
			idle();
			return;
		}
		ClientHold hold = this.holds.get(index);
		hold.hold.extend(this.port, leaseMillis, Completion.of((result) -> {
			if (hold.confirmed) {
				extendFrom(index + 1, leaseMillis);
			}
			else {
				idle();
			}
		}, (error) -> idle()));
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
		// What the release passes on, as the engine counts it.
		long keepMillis = new HoldLife(grant, hold.acquiredNanos).minimumHoldLeftMillis(now);
		// The end of the minimum hold the engine promises (acquired + minimum hold),
		// which the lease caps: Redis keeps the lock at least until the hold's deadline.
		long keptUntil = Math.min(hold.acquiredNanos + grant.spec().holdAtLeastMillis() * LockSimulation.MS,
				hold.endNanos());
		KeptLock kept = (keepMillis > 0 && keptUntil - now > 0) ? this.run.checks()
			.kept(hold, new KeptLock(this.holder, this.owner, grant.token(), grant.hold(), keptUntil, keepMillis,
					hold.endNanos()))
				: null;
		if (kept != null) {
			hold.keeping = kept;
			this.run.note(this.holder + " releases " + hold + " keeping " + keepMillis + " ms");
		}
		LockPort releasing = this.port.whenRan(() -> {
			if (kept != null && kept.ranNanos < 0) {
				kept.ranNanos = this.run.nanos();
			}
		});
		// The planted bug passes nothing on but for the multi-lock's first lock (its
		// name); the promise, above, stays the engine's.
		if (this.run.clientBug() == LockSimulation.ClientBug.MULTI_KEEPS_FIRST_ONLY && index > 0) {
			releasing = keepingNothing(releasing, grant);
		}
		hold.hold.release(releasing,
				Completion.of((left) -> releaseFrom(index - 1, then), (error) -> releaseFrom(index - 1, then)));
	}

	/**
	 * The planted bug {@link LockSimulation.ClientBug#MULTI_KEEPS_FIRST_ONLY}: a port
	 * that sends a hold's release with nothing kept for its minimum hold.
	 */
	private LockPort keepingNothing(LockPort port, Grant grant) {
		return SimulatedPort.running(port, (name, operation, call, reply) -> port.run(name, operation,
				grant.spec().kind().release(grant.spec(), this.owner, grant.token(), grant.hold(), true, 0), reply));
	}

}
