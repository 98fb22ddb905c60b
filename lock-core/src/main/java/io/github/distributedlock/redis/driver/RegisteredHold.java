package io.github.distributedlock.redis.driver;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.redis.core.Grant;

/**
 * A handle of one hold, as the {@link HoldRegistry} keeps it: its {@link LockHold}, the
 * thread that took it and when, and whether the listeners heard of it. Each template's
 * handle is one, and adds how its caller checks, extends and releases the hold.
 */
public abstract class RegisteredHold extends HoldView implements OwnerHolds.Handle {

	private final LockHold hold;

	private final String thread;

	private final Instant since = Instant.now();

	private final CompletableFuture<Void> lost = new CompletableFuture<>();

	// Whether the listeners heard of it: only then do they hear of its end.
	private volatile boolean announced;

	/**
	 * @param grant what the acquisition won; the lease counts from its {@code sentNanos}
	 * @param thread the thread that took it, as operators see it
	 */
	protected RegisteredHold(HoldRegistry registry, Grant grant, String thread) {
		this.hold = registry.newHold(grant, this);
		this.thread = thread;
	}

	@Override
	public final LockHold hold() {
		return this.hold;
	}

	@Override
	protected final List<LockHold> holds() {
		return List.of(this.hold);
	}

	/**
	 * Return what the acquisition won: the hold that this handle's commands name.
	 */
	public final Grant grant() {
		return this.hold.grant();
	}

	/**
	 * Return this hold as the {@code LockListener}s see it.
	 */
	protected abstract LockContext listenedTo();

	/**
	 * Return a future completed once the hold is lost.
	 */
	protected final CompletableFuture<Void> lostSignal() {
		return this.lost;
	}

	/**
	 * Return what else hears what becomes of the hold, after the registry and the
	 * listeners: nothing for a template's handle; the simulation's holds feed its checks
	 * this way.
	 */
	protected LockHold.Events heard() {
		return LockHold.Events.NONE;
	}

	final void announce() {
		this.announced = true;
	}

	final boolean isAnnounced() {
		return this.announced;
	}

	final HeldLock snapshot() {
		return new HeldLock(name(), this.thread, this.since, remainingLease(), fencingToken(),
				this.hold.spec().origin());
	}

}
