package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.HoldView;
import io.github.distributedlock.redis.driver.CohortRelease;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.OwnerHolds;

/**
 * A hold of a lock for the blocking template: the driver's {@link LockHold}, whose
 * extension and release run as plain calls on the caller's thread, reporting to its
 * {@link HoldRegistry}.
 */
public final class RedisLockHandle extends HoldView implements LockHandle, OwnerHolds.Handle {

	private final LockHold hold;

	private final HoldRegistry registry;

	private final BlockingPort port;

	private final LockCommands commands;

	private final String thread;

	// Whether the listeners heard of it: only then do they hear of its end.
	private volatile boolean announced;

	private final Instant since = Instant.now();

	private final CompletableFuture<Void> lostSignal = new CompletableFuture<>();

	/**
	 * @param grant what the acquisition won; the lease counts from its {@code sentNanos}
	 * @param thread the name of the thread that acquired it
	 */
	RedisLockHandle(Grant grant, HoldRegistry registry, BlockingPort port, LockCommands commands, boolean handOff,
			CohortRelease cohorts, String thread) {
		this.registry = registry;
		this.thread = thread;
		this.port = port;
		this.commands = commands;
		this.hold = new LockHold(grant, System.nanoTime(), handOff, new Reports(), cohorts);
	}

	void announced() {
		this.announced = true;
	}

	boolean isAnnounced() {
		return this.announced;
	}

	@Override
	public LockHold hold() {
		return this.hold;
	}

	@Override
	protected List<LockHold> holds() {
		return List.of(this.hold);
	}

	LockSpec spec() {
		return this.hold.spec();
	}

	String owner() {
		return this.hold.grant().owner();
	}

	/**
	 * Return what the acquisition won: the hold that this handle's commands name.
	 */
	public Grant grant() {
		return this.hold.grant();
	}

	@Override
	public CompletionStage<Void> whenLost() {
		return this.lostSignal.minimalCompletionStage();
	}

	@Override
	public boolean isHeld() {
		if (this.hold.isReleased() || this.hold.isLost()) {
			return false;
		}
		return this.commands.isHeld(this.hold.grant());
	}

	@Override
	public void extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		long leaseMillis = leaseMillis(lease);
		await((done) -> this.hold.extend(this.port.here(), leaseMillis, done));
	}

	@Override
	public void close() {
		if (!this.hold.isReleased()) {
			await((done) -> this.hold.release(this.port.here(), done));
		}
	}

	/**
	 * Run a command of the hold as a plain call on this thread.
	 * @throws RuntimeException what it failed with
	 */
	private static void await(Consumer<Completion<Long>> command) {
		Throwable[] failure = new Throwable[1];
		command.accept(Completion.of((result) -> {
		}, (error) -> failure[0] = error));
		if (failure[0] instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure[0] instanceof Error fatal) {
			throw fatal;
		}
	}

	HeldLock snapshot() {
		return new HeldLock(name(), this.thread, this.since, remainingLease(), fencingToken(), spec().origin());
	}

	@Override
	public String toString() {
		return "LockHandle[" + name() + ", token=" + fencingToken() + "]";
	}

	private final class Reports implements LockHold.Events {

		@Override
		public void sending(LockHold hold) {
			RedisLockHandle.this.registry.sending(owner(), spec().lockKey());
		}

		@Override
		public void replied(LockHold hold, long leaseMillis) {
			RedisLockHandle.this.registry.replied(RedisLockHandle.this, leaseMillis);
		}

		@Override
		public void failed(LockHold hold) {
			RedisLockHandle.this.registry.failed(RedisLockHandle.this);
		}

		@Override
		public void released(LockHold hold, long result) {
			RedisLockHandle.this.registry.released(RedisLockHandle.this, result);
		}

		@Override
		public void releaseFailed(LockHold hold, LockAccessException failure) {
			RedisLockHandle.this.registry.releaseFailed(RedisLockHandle.this, failure);
		}

		@Override
		public void releasedAfter(LockHold hold, Duration heldFor) {
			RedisLockHandle.this.registry.releasedFor(RedisLockHandle.this, heldFor);
		}

		@Override
		public void lost(LockHold hold, boolean goneFromRedis) {
			RedisLockHandle.this.registry.lost(RedisLockHandle.this, goneFromRedis);
			RedisLockHandle.this.lostSignal.complete(null);
		}

	}

}
