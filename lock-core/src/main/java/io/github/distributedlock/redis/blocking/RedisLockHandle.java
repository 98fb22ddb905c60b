package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LockHold;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.RegisteredHold;

/**
 * A hold of a lock for the blocking template: the driver's {@link LockHold}, registered
 * in the template's {@link HoldRegistry}. Its extension and release go out through the
 * template's port, and the caller's thread waits for their replies and tells them
 * ({@link BlockingPort#runOnCaller}).
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
		await((port, done) -> hold().extend(port, leaseMillis, done));
	}

	@Override
	public void close() {
		if (!hold().isReleased()) {
			await((port, done) -> hold().release(port, done));
		}
	}

	/**
	 * Run a command of the hold and wait for its reply.
	 * @throws RuntimeException what it failed with
	 */
	private void await(BiConsumer<LockPort, Completion<Long>> command) {
		Throwable[] failure = new Throwable[1];
		this.port.runOnCaller((port) -> command.accept(port, Completion.of((result) -> {
		}, (error) -> failure[0] = error)));
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
