package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.RegisteredHold;

/**
 * A hold of a lock for the blocking template: the driver's {@link LockHold}, registered
 * in the template's {@link HoldRegistry}, whose extension and release run as plain calls
 * on the caller's thread.
 */
public final class RedisLockHandle extends RegisteredHold implements LockHandle {

	private final BlockingPort port;

	private final LockCommands commands;

	/**
	 * @param grant what the acquisition won; the lease counts from its {@code sentNanos}
	 * @param thread the name of the thread that acquired it
	 */
	RedisLockHandle(HoldRegistry registry, Grant grant, String thread, BlockingPort port, LockCommands commands) {
		super(registry, grant, thread);
		this.port = port;
		this.commands = commands;
	}

	@Override
	protected LockContext listenedTo() {
		return this;
	}

	@Override
	public CompletionStage<Void> whenLost() {
		return lostSignal().minimalCompletionStage();
	}

	@Override
	public boolean isHeld() {
		if (hold().isReleased() || hold().isLost()) {
			return false;
		}
		return this.commands.isHeld(hold().grant());
	}

	@Override
	public void extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		long leaseMillis = leaseMillis(lease);
		await((done) -> hold().extend(this.port.here(), leaseMillis, done));
	}

	@Override
	public void close() {
		if (!hold().isReleased()) {
			await((done) -> hold().release(this.port.here(), done));
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

	@Override
	public String toString() {
		return "LockHandle[" + name() + ", token=" + fencingToken() + "]";
	}

}
