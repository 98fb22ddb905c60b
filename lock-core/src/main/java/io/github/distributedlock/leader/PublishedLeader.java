package io.github.distributedlock.leader;

import java.time.Instant;
import java.util.Objects;

/**
 * A role's leader as its term published it in a {@link LeaderDirectory}.
 *
 * @param role the role
 * @param instanceId the leader's id ({@link Candidate#getId()})
 * @param fencingToken the fencing token of its term
 * @param since when its term began, by the leader's clock, to the millisecond
 */
public record PublishedLeader(String role, String instanceId, long fencingToken, Instant since) {

	public PublishedLeader {
		Objects.requireNonNull(role, "role must not be null");
		Objects.requireNonNull(instanceId, "instanceId must not be null");
		Objects.requireNonNull(since, "since must not be null");
	}

}
