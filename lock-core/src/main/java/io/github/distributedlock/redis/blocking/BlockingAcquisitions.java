package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.server.LockRequestResolver;

/**
 * The blocking template's acquisitions: the driver's ({@link Acquisitions}), which the
 * caller waits for ({@link CallerWait}). The listeners hear of a handle, and of a wait
 * that ran out, on the caller's thread. Thread-safe.
 */
public final class BlockingAcquisitions {

	private final BlockingPort port;

	private final LockCommands commands;

	private final Acquisitions<RedisLockHandle> acquisitions;

	private final HoldRegistry registry;

	public BlockingAcquisitions(BlockingPort port, LockCommands commands, Acquisitions<RedisLockHandle> acquisitions) {
		this.port = port;
		this.commands = commands;
		this.acquisitions = acquisitions;
		this.registry = acquisitions.registry();
	}

	/**
	 * Acquire one lock, waiting up to its wait time.
	 * @param start when the call began, in {@link System#nanoTime()}
	 * @throws LockTimeoutException if the wait time ran out
	 */
	public RedisLockHandle acquire(LockSpec spec, String owner, long start) {
		CallerWait<RedisLockHandle> wait = new CallerWait<>(this.port, spec.name(), spec.waitNanos(),
				spec.progressAware());
		RedisLockHandle handle = notAcquiredIfTimeout(
				() -> wait.await(this.acquisitions.one(spec, owner, start, this.port.forOneRun(), handles(), wait)));
		this.registry.announce(handle);
		return handle;
	}

	/**
	 * Take several exclusive locks as one hold, every one or none
	 * ({@link Acquisitions#all}).
	 * @param first the first request, whose wait time and reentrancy the multi-lock has
	 * @param requested every request, in the order asked, each
	 * {@linkplain LockRequestResolver#multiLockable(LockSpec) multi-lockable}
	 * @param start when the call began, in {@link System#nanoTime()}
	 * @throws LockTimeoutException if the locks were not all taken within the wait time
	 */
	public MultiLockHandle acquireAll(LockSpec first, List<LockSpec> requested, String owner, long start) {
		CallerWait<List<RedisLockHandle>> wait = new CallerWait<>(this.port, first.name(), first.waitNanos(),
				first.progressAware());
		List<RedisLockHandle> holds = notAcquiredIfTimeout(() -> wait
			.await(this.acquisitions.all(first, requested, owner, start, this.port.forOneRun(), handles(), wait)));
		holds.forEach(this.registry::announce);
		return new MultiLockHandle(holds, Duration.ofNanos(System.nanoTime() - start));
	}

	/**
	 * Return how the calling thread's grants become handles, which report that thread.
	 */
	private Function<Grant, RedisLockHandle> handles() {
		String thread = Thread.currentThread().getName();
		return (grant) -> new RedisLockHandle(this.registry, grant, thread, this.port, this.commands);
	}

	/**
	 * Register a hold found in Redis, which is neither renewed nor reported as acquired;
	 * its end is reported.
	 */
	public RedisLockHandle adopt(Grant grant) {
		return this.registry.adopt(
				new RedisLockHandle(this.registry, grant, Thread.currentThread().getName(), this.port, this.commands));
	}

	/**
	 * Return the owner Redis records for a hold of the caller on the lock.
	 */
	public String redisOwner(String lockKey, String caller) {
		return this.acquisitions.redisOwner(lockKey, caller);
	}

	private <G> G notAcquiredIfTimeout(Supplier<G> acquisition) {
		try {
			return acquisition.get();
		}
		catch (LockTimeoutException ex) {
			this.registry.notAcquired(ex.getLockName(), ex.getWaited());
			throw ex;
		}
	}

}
