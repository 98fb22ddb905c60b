package io.github.distributedlock.redis.blocking;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.ReplicaWait;
import io.github.distributedlock.redis.server.ReplicaAcknowledgements;
import org.jspecify.annotations.Nullable;

/**
 * How the blocking template's grants become handles in its {@link HoldRegistry}: each
 * passes the replica check first, if the template asks for replica acknowledgements, and
 * a multi-lock's all or none. Thread-safe.
 */
public final class BlockingHolds implements AutoCloseable {

	private final HoldRegistry registry;

	private final BlockingPort port;

	private final LockCommands commands;

	private final @Nullable ReplicaWait replicas;

	private final @Nullable ReplicaAcknowledgements acknowledgements;

	/**
	 * @param port where the handles' commands run
	 * @param replicas the replica check every new hold passes, or {@code null} for none
	 * @param acknowledgements what that check counts with, closed with this
	 */
	public BlockingHolds(HoldRegistry registry, BlockingPort port, LockCommands commands,
			@Nullable ReplicaWait replicas, @Nullable ReplicaAcknowledgements acknowledgements) {
		this.registry = registry;
		this.port = port;
		this.commands = commands;
		this.replicas = replicas;
		this.acknowledgements = acknowledgements;
	}

	public HoldRegistry registry() {
		return this.registry;
	}

	/**
	 * Turn what an acquisition won into a registered handle.
	 * @param call the bound of the acquisition's call, which the replica check keeps
	 * @throws LockAccessException if too few replicas acknowledged the hold, which is
	 * then released
	 */
	public RedisLockHandle hold(Grant grant, Deadline call) {
		confirmReplicas(List.of(grant), call);
		RedisLockHandle handle = taken(grant, Thread.currentThread().getName());
		this.registry.announce(handle);
		return handle;
	}

	/**
	 * Register a lock of a multi-lock taken in order as soon as it is taken, so that it
	 * is renewed while the next is taken; the replica check and the listeners come once
	 * all are taken, on the caller's thread ({@link #confirmTaken}).
	 * @param thread the caller's thread, which the handle reports
	 */
	RedisLockHandle taken(Grant grant, String thread) {
		return this.registry.add(new RedisLockHandle(this.registry, grant, thread, this.port, this.commands));
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
	 * Check the replicas of a multi-lock's locks {@link #taken} in order, and tell the
	 * listeners; if one fails the check, none is returned: each is forgotten, as if never
	 * held (no listener hears of it), and the check releases them.
	 */
	void confirmTaken(List<RedisLockHandle> handles, Deadline call) {
		try {
			if (this.replicas != null) {
				// Renewed while the later locks were taken: each lease as its handle
				// counts it.
				List<Grant> grants = handles.stream().map(RedisLockHandle::grant).toList();
				await(this.replicas.confirm(grants, call,
						(grant) -> !handles.get(grants.indexOf(grant)).hold().isLive(System.nanoTime())), grants, call);
			}
		}
		catch (RuntimeException ex) {
			handles.forEach(this.registry::forget);
			throw ex;
		}
		handles.forEach(this.registry::announce);
	}

	/**
	 * Turn what a multi-lock won into registered handles, all or none: if one fails the
	 * replica check, the check releases them all.
	 */
	List<RedisLockHandle> holdAll(List<Grant> grants, Deadline call) {
		confirmReplicas(grants, call);
		String thread = Thread.currentThread().getName();
		List<RedisLockHandle> handles = grants.stream().map((grant) -> taken(grant, thread)).toList();
		handles.forEach(this.registry::announce);
		return handles;
	}

	/**
	 * Wait until enough replicas have the holds, if the template asks for replica
	 * acknowledgements.
	 * @throws LockAccessException if they don't (the holds are then released)
	 */
	private void confirmReplicas(List<Grant> grants, Deadline call) {
		if (this.replicas != null) {
			await(this.replicas.confirm(grants, call), grants, call);
		}
	}

	/**
	 * Wait for a replica check, through interrupts, which stay set: the holds are won,
	 * and an interrupt must not leave them unchecked. The port's timer ends the check at
	 * the call's bound; a bounded wait ends there too, should that timer be gone with the
	 * template. An unbounded one ends with the check's commands.
	 */
	private static void await(CompletableFuture<List<Grant>> confirmed, List<Grant> grants, Deadline call) {
		long bound = call.remainingNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					long left = Math.max(0, call.remainingNanos());
					if (bound == Long.MAX_VALUE || left > Long.MAX_VALUE - CallerWait.GRACE_NANOS) {
						confirmed.get();
					}
					else {
						confirmed.get(left + CallerWait.GRACE_NANOS, TimeUnit.NANOSECONDS);
					}
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (TimeoutException ex) {
					// Nobody takes them unless the check confirmed them just now:
					// released
					// once it ends.
					if (confirmed.cancel(false)) {
						throw new LockAccessException(grants.get(0).spec().name(), "the replica check did not end", ex);
					}
				}
			}
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new LockAccessException(grants.get(0).spec().name(), "the replica check failed", ex.getCause());
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void close() {
		if (this.acknowledgements != null) {
			this.acknowledgements.close();
		}
		this.registry.close();
	}

}
