package io.github.distributedlock.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.Leadership;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@link Endpoint @Endpoint} that shows, for each role this instance contends for,
 * whether it leads ({@code /actuator/leaders}): the leader's id, since when and its
 * term's fencing token, or, when another instance leads, only that the role's lock is
 * held.
 */
@Endpoint(id = "leaders")
public class LeadersEndpoint {

	private final Leadership leadership;

	private final LockTemplate lockTemplate;

	/**
	 * Create an endpoint.
	 * @param leadership the roles to show
	 * @param lockTemplate the template that holds the roles' locks
	 */
	public LeadersEndpoint(Leadership leadership, LockTemplate lockTemplate) {
		this.leadership = leadership;
		this.lockTemplate = lockTemplate;
	}

	/**
	 * Show each role, sorted by name.
	 * @return the roles
	 */
	@ReadOperation
	public LeadersDescriptor leaders() {
		List<RoleDescriptor> roles = new ArrayList<>();
		for (String role : this.leadership.roles()) {
			Optional<LeaderContext> term = this.leadership.context(role).filter(LeaderContext::isLeader);
			if (term.isPresent()) {
				LeaderContext context = term.get();
				roles.add(new RoleDescriptor(role, true, context.instanceId(), context.since(), context.fencingToken(),
						context.remainingLease(), true));
			}
			else {
				roles.add(new RoleDescriptor(role, false, null, null, null, null, heldElsewhere(role)));
			}
		}
		return new LeadersDescriptor(roles);
	}

	private @Nullable Boolean heldElsewhere(String role) {
		try {
			return this.lockTemplate.isLocked(LeaderInitiator.LOCK_SCOPE, role);
		}
		catch (LockAccessException ex) {
			return null;
		}
	}

	/**
	 * The roles of this instance.
	 *
	 * @param roles each role
	 */
	public record LeadersDescriptor(List<RoleDescriptor> roles) implements OperationResponseBody {

	}

	/**
	 * One role.
	 *
	 * @param role the role
	 * @param leader whether this instance leads it
	 * @param instance the leader's id, when this instance leads
	 * @param since when its term began, when this instance leads
	 * @param fencingToken its term's fencing token, when this instance leads
	 * @param remainingLease the lease left by the local clock, when this instance leads
	 * @param locked whether any instance holds the role's lock, or {@code null} when
	 * Redis could not be reached
	 */
	public record RoleDescriptor(String role, boolean leader, @Nullable String instance, @Nullable Instant since,
			@Nullable Long fencingToken, @Nullable Duration remainingLease, @Nullable Boolean locked) {

	}

}
