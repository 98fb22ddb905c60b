package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockTimeoutException;
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
 * one, in the same order ({@code InOrderAcquisition}). Thread-safe.
 */
public final class MultiLocking {

	private final BlockingAcquisitions acquisitions;

	private final BlockingHolds holds;

	private final RedisServerFeatures server;

	private final boolean handOff;

	public MultiLocking(BlockingAcquisitions acquisitions, BlockingHolds holds, RedisServerFeatures server,
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
			holds = this.holds.holdAll(grants,
					this.acquisitions.callBound(first.progressAware() ? -1 : first.waitNanos(), start));
		}
		else {
			holds = this.acquisitions.acquireInOrder(specs, owner, first.waitNanos(), start, first.progressAware());
		}
		return new MultiLockHandle(holds, Duration.ofNanos(System.nanoTime() - start));
	}

}
