package io.github.distributedlock.autoconfigure.actuate;

import java.util.List;

import io.github.distributedlock.LockName;
import io.github.distributedlock.LockOperations;
import io.github.distributedlock.ReactiveLockOperations;
import io.github.distributedlock.redis.core.CohortStatistics;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * The {@link DistributedLocksEndpoint} plus a delete operation that force-releases a lock
 * ({@code DELETE /actuator/distributedlocks/{scope}/{key}}), whoever holds it. This
 * breaks mutual exclusion for the current holder, so it exists only when
 * {@code distributed-lock.actuator.force-release-enabled} is {@code true}; it is for
 * freeing a lock whose holder is known to be gone.
 */
@Endpoint(id = "distributedlocks")
public class ForceReleaseDistributedLocksEndpoint extends DistributedLocksEndpoint {

	/**
	 * Create an endpoint.
	 * @param lockOperations the locks to show and release
	 */
	public ForceReleaseDistributedLocksEndpoint(LockOperations lockOperations) {
		super(lockOperations);
	}

	/**
	 * Create an endpoint that also shows the holds of a reactive template.
	 * @param lockOperations the locks to show and release
	 * @param reactiveLockOperations the reactive locks to show with them, or {@code null}
	 */
	public ForceReleaseDistributedLocksEndpoint(LockOperations lockOperations,
			@Nullable ReactiveLockOperations reactiveLockOperations) {
		super(lockOperations, reactiveLockOperations);
	}

	/**
	 * Create an endpoint that also shows the holds of a reactive template and what the
	 * cohorts of the Redis lock templates did.
	 * @param lockOperations the locks to show and release
	 * @param reactiveLockOperations the reactive locks to show with them, or {@code null}
	 * @param cohortStatistics the statistics of the Redis lock templates' cohorts,
	 * counted together; none for a template without cohorts
	 */
	public ForceReleaseDistributedLocksEndpoint(LockOperations lockOperations,
			@Nullable ReactiveLockOperations reactiveLockOperations, List<CohortStatistics> cohortStatistics) {
		super(lockOperations, reactiveLockOperations, cohortStatistics);
	}

	/**
	 * Delete a lock whoever holds it, and wake its waiters.
	 * @param name the scope, optionally followed by the key
	 * @return whether a lock was deleted
	 */
	@DeleteOperation
	public ReleasedDescriptor forceRelease(@Selector(match = Match.ALL_REMAINING) String[] name) {
		LockName lockName = lockName(name);
		return new ReleasedDescriptor(lockName.scope(), lockName.key(), getLockOperations().forceRelease(lockName));
	}

	/**
	 * The result of a force-release.
	 *
	 * @param scope the scope
	 * @param key the key, or {@code null} for a lock on the whole scope
	 * @param released whether a lock was deleted
	 */
	public record ReleasedDescriptor(String scope, @Nullable String key,
			boolean released) implements OperationResponseBody {

	}

}
