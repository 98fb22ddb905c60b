package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.core.NanoClock;
import io.github.distributedlock.redis.server.LockRequestResolver;
import io.github.distributedlock.redis.server.RedisServerFeatures;

/**
 * The blocking engine's multi-locks: takes several exclusive locks as one hold, in one
 * global order (by key), which makes overlapping multi-locks deadlock-free. One script
 * takes them all, unless on a Cluster their keys are in several hash slots: then one by
 * one, in the same order, rolling back on failure. Thread-safe.
 */
public final class MultiLocking {

	private final BlockingAcquisitions acquisitions;

	private final HoldRegistry holds;

	private final RedisServerFeatures server;

	private final boolean handOff;

	public MultiLocking(BlockingAcquisitions acquisitions, HoldRegistry holds, RedisServerFeatures server,
			boolean handOff) {
		this.acquisitions = acquisitions;
		this.holds = holds;
		this.server = server;
		this.handOff = handOff;
	}

	/**
	 * Take every lock, or none.
	 * @param first the first request, whose wait time and reentrancy the multi-lock has
	 * @param requested every request, in the order asked, each
	 * {@linkplain LockRequestResolver#multiLockable(LockSpec) multi-lockable}
	 * @param start when the acquisition began, in {@link System#nanoTime()}
	 * @throws LockTimeoutException if the locks were not all taken within the wait time
	 */
	public MultiLockHandle acquireAll(LockSpec first, List<LockSpec> requested, String owner, long start) {
		List<LockSpec> specs = MultiAcquisition.inGlobalOrder(requested);
		List<RedisLockHandle> holds;
		if (MultiAcquisition.inOneScript(specs, this.server::isCluster)) {
			List<Grant> grants = this.acquisitions.acquireAll(new MultiAcquisition(specs, owner, first.waitNanos(),
					first.reentrant(), this.handOff, NanoClock.SYSTEM), first.waitNanos());
			holds = this.holds.holdAll(grants);
		}
		else {
			holds = acquireInOrder(specs, owner, new Deadline(first.waitNanos(), start));
		}
		return new MultiLockHandle(holds, Duration.ofNanos(System.nanoTime() - start));
	}

	/**
	 * Take locks one by one in the given (global) order, rolling back on failure.
	 */
	private List<RedisLockHandle> acquireInOrder(List<LockSpec> specs, String owner, Deadline deadline) {
		List<RedisLockHandle> holds = new ArrayList<>(specs.size());
		try {
			for (LockSpec spec : specs) {
				Grant grant;
				try {
					// No lock of a multi-lock takes part in a cohort (cohorting.md).
					grant = this.acquisitions.acquire(spec.withWaitNanos(deadline.remainingBudgetNanos()), owner,
							false);
				}
				catch (LockTimeoutException timeout) {
					// Timed from the start of the multi-lock, not of this lock.
					throw new LockTimeoutException(spec.name(), deadline.elapsed(), timeout.getHolderRemainingLease());
				}
				holds.add(this.holds.hold(grant));
			}
			return holds;
		}
		catch (RuntimeException ex) {
			try {
				MultiLockHandle.releaseAll(holds);
			}
			catch (RuntimeException releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
	}

}
