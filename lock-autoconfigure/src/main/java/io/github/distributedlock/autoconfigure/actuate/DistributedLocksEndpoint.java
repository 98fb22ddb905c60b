package io.github.distributedlock.autoconfigure.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockOperations;
import io.github.distributedlock.ReactiveLockOperations;
import io.github.distributedlock.redis.core.CohortStatistics;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * {@link Endpoint @Endpoint} that shows the locks this instance holds
 * ({@code /actuator/distributedlocks}) and whether a lock is held anywhere in the cluster
 * ({@code /actuator/distributedlocks/{scope}/{key}}, or {@code /{scope}} for a lock on a
 * whole scope; a key may contain {@code /}).
 *
 * @see ForceReleaseDistributedLocksEndpoint
 */
@Endpoint(id = "distributedlocks")
public class DistributedLocksEndpoint {

	private final LockOperations lockOperations;

	private final @Nullable ReactiveLockOperations reactiveLockOperations;

	private final List<CohortStatistics> cohortStatistics;

	/**
	 * Create an endpoint.
	 * @param lockOperations the locks to show
	 */
	public DistributedLocksEndpoint(LockOperations lockOperations) {
		this(lockOperations, null);
	}

	/**
	 * Create an endpoint that also shows the holds of a reactive template.
	 * @param lockOperations the locks to show
	 * @param reactiveLockOperations the reactive locks to show with them, or {@code null}
	 */
	public DistributedLocksEndpoint(LockOperations lockOperations,
			@Nullable ReactiveLockOperations reactiveLockOperations) {
		this(lockOperations, reactiveLockOperations, List.of());
	}

	/**
	 * Create an endpoint that also shows the holds of a reactive template and what the
	 * cohorts of the Redis lock templates did.
	 * @param lockOperations the locks to show
	 * @param reactiveLockOperations the reactive locks to show with them, or {@code null}
	 * @param cohortStatistics the statistics of the Redis lock templates' cohorts
	 * ({@code cohortStatistics()} of the blocking and the reactive template), counted
	 * together; none for a template without cohorts
	 */
	public DistributedLocksEndpoint(LockOperations lockOperations,
			@Nullable ReactiveLockOperations reactiveLockOperations, List<CohortStatistics> cohortStatistics) {
		this.lockOperations = lockOperations;
		this.reactiveLockOperations = reactiveLockOperations;
		this.cohortStatistics = List.copyOf(cohortStatistics);
	}

	/**
	 * List the locks this instance holds now, blocking and reactive, oldest first, and
	 * what the cohorts did.
	 * @return the holds
	 */
	@ReadOperation
	public HeldLocksDescriptor heldLocks() {
		List<CohortStatistics> cohorts = this.cohortStatistics;
		return new HeldLocksDescriptor(held().stream().map(HeldLockDescriptor::new).toList(),
				cohorts.isEmpty() ? null : new CohortsDescriptor(cohorts));
	}

	private List<HeldLock> held() {
		ReactiveLockOperations reactive = this.reactiveLockOperations;
		if (reactive == null) {
			return this.lockOperations.heldLocks();
		}
		List<HeldLock> held = new ArrayList<>(this.lockOperations.heldLocks());
		held.addAll(reactive.heldLocks());
		held.sort(Comparator.comparing(HeldLock::since));
		return held;
	}

	/**
	 * Say whether a lock is held by anyone, in any process, and whether by this instance.
	 * @param name the scope, optionally followed by the key
	 * @return the lock's status
	 */
	@ReadOperation
	public LockDescriptor lock(@Selector(match = Match.ALL_REMAINING) String[] name) {
		LockName lockName = lockName(name);
		boolean locked = this.lockOperations.isLocked(lockName.scope(), lockName.key());
		boolean heldHere = locked && held().stream().anyMatch((held) -> held.name().equals(lockName));
		return new LockDescriptor(lockName.scope(), lockName.key(), locked, heldHere);
	}

	LockOperations getLockOperations() {
		return this.lockOperations;
	}

	static LockName lockName(String[] name) {
		if (name.length == 0) {
			throw new IllegalArgumentException("A lock scope is required");
		}
		String key = (name.length > 1) ? String.join("/", Arrays.copyOfRange(name, 1, name.length)) : null;
		return LockName.of(name[0], key);
	}

	/**
	 * The locks this instance holds, and what the cohorts of its lock template did.
	 *
	 * @param locks the holds, oldest first
	 * @param cohorts the cohorts, or {@code null} for a template that has none (not
	 * Redis's)
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks,
			@Nullable CohortsDescriptor cohorts) implements OperationResponseBody {

	}

	/**
	 * What the cohorts of the lock template did since it started
	 * ({@code distributed-lock.cohorts.*}).
	 *
	 * @param enabled whether a release may pass a lock in memory
	 * @param maxHolders the most holders of one cohort, the first included (1 when off)
	 * @param maxTimeMillis how long after its hold was requested from Redis a cohort may
	 * still pass the lock, in milliseconds (0 when off)
	 * @param openings cohorts opened: holds taken from Redis by a caller with a waiter of
	 * this instance behind it
	 * @param passes holds passed in memory, without Redis
	 * @param closed cohorts that passed the lock and then released it through Redis
	 * @param longestMillis the longest of those, from the opening attempt to that
	 * release, in milliseconds: about the longest a waiter of another process, next in
	 * line, waited for a cohort
	 */
	public record CohortsDescriptor(boolean enabled, int maxHolders, long maxTimeMillis, long openings, long passes,
			long closed, long longestMillis) {

		/**
		 * Count the cohorts of every template together; the limits are the first's, as
		 * both templates take theirs from the same properties.
		 */
		CohortsDescriptor(List<CohortStatistics> statistics) {
			this(statistics.get(0).limits().isOn(), statistics.get(0).limits().holders(),
					TimeUnit.NANOSECONDS.toMillis(statistics.get(0).limits().timeNanos()),
					statistics.stream().mapToLong(CohortStatistics::openings).sum(),
					statistics.stream().mapToLong(CohortStatistics::passes).sum(),
					statistics.stream().mapToLong(CohortStatistics::closings).sum(), TimeUnit.NANOSECONDS
						.toMillis(statistics.stream().mapToLong(CohortStatistics::longestNanos).max().orElse(0)));
		}

	}

	/**
	 * One lock held by this instance.
	 *
	 * @param scope the scope
	 * @param key the key, or {@code null} for a lock on the whole scope
	 * @param thread the name of the thread that acquired it
	 * @param since when it was acquired
	 * @param remainingLeaseMillis a conservative estimate of the lease left, in
	 * milliseconds
	 * @param fencingToken the fencing token
	 * @param origin where it was requested, such as the annotated method, or {@code null}
	 */
	public record HeldLockDescriptor(String scope, @Nullable String key, String thread, Instant since,
			long remainingLeaseMillis, long fencingToken, @Nullable String origin) {

		HeldLockDescriptor(HeldLock held) {
			this(held.name().scope(), held.name().key(), held.thread(), held.since(), held.remainingLease().toMillis(),
					held.fencingToken(), held.origin());
		}

	}

	/**
	 * Whether one lock is held.
	 *
	 * @param scope the scope
	 * @param key the key, or {@code null} for a lock on the whole scope
	 * @param locked whether anyone, in any process, holds it
	 * @param heldHere whether this instance holds it
	 */
	public record LockDescriptor(String scope, @Nullable String key, boolean locked,
			boolean heldHere) implements OperationResponseBody {

	}

}
