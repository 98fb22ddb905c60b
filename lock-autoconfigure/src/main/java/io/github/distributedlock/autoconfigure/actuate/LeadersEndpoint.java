package io.github.distributedlock.autoconfigure.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.leader.LeaderContext;
import io.github.distributedlock.leader.LeaderDirectory;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.Leadership;
import io.github.distributedlock.leader.PublishedLeader;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@link Endpoint @Endpoint} that shows, for each role this instance contends for or
 * abstains from, who leads it ({@code /actuator/leaders}): the leader's id, since when
 * and its term's fencing token, read from this instance's term when it leads and from the
 * {@link LeaderDirectory} when another instance does.
 */
@Endpoint(id = "leaders")
public class LeadersEndpoint {

	private final Leadership leadership;

	private final LockTemplate lockTemplate;

	private final @Nullable LeaderDirectory directory;

	/**
	 * Create an endpoint that shows the leader only on the instance that leads.
	 * @param leadership the roles to show
	 * @param lockTemplate the template that holds the roles' locks
	 */
	public LeadersEndpoint(Leadership leadership, LockTemplate lockTemplate) {
		this(leadership, lockTemplate, null);
	}

	/**
	 * Create an endpoint.
	 * @param leadership the roles to show
	 * @param lockTemplate the template that holds the roles' locks
	 * @param directory where the leaders publish who they are, or {@code null} for none
	 */
	public LeadersEndpoint(Leadership leadership, LockTemplate lockTemplate, @Nullable LeaderDirectory directory) {
		this.leadership = leadership;
		this.lockTemplate = lockTemplate;
		this.directory = directory;
	}

	/**
	 * Show each role, sorted by name.
	 * @return the roles
	 */
	@ReadOperation
	public LeadersDescriptor leaders() {
		Set<String> contended = this.leadership.roles();
		Set<String> all = new TreeSet<>(contended);
		all.addAll(this.leadership.abstainingRoles());
		List<RoleDescriptor> roles = new ArrayList<>();
		for (String role : all) {
			boolean contending = contended.contains(role);
			Optional<LeaderContext> term = contending ? this.leadership.context(role).filter(LeaderContext::isLeader)
					: Optional.empty();
			if (term.isPresent()) {
				LeaderContext context = term.get();
				roles.add(new RoleDescriptor(role, true, true, context.instanceId(), context.since(),
						context.fencingToken(), context.remainingLease().toMillis(), true));
			}
			else {
				roles.add(followed(role, contending));
			}
		}
		return new LeadersDescriptor(roles);
	}

	private RoleDescriptor followed(String role, boolean contending) {
		try {
			PublishedLeader leader = (this.directory != null) ? this.directory.find(role).orElse(null) : null;
			if (leader != null) {
				return new RoleDescriptor(role, contending, false, leader.instanceId(), leader.since(),
						leader.fencingToken(), null, true);
			}
			return new RoleDescriptor(role, contending, false, null, null, null, null,
					this.lockTemplate.isLocked(LeaderInitiator.LOCK_SCOPE, role));
		}
		catch (LockAccessException ex) {
			return new RoleDescriptor(role, contending, false, null, null, null, null, null);
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
	 * @param contending whether this instance contends for it; {@code false} for a role
	 * it abstains from (disabled in its configuration)
	 * @param leader whether this instance leads it
	 * @param instance the leader's id, or {@code null} when nobody leads or the leader
	 * has not published itself yet
	 * @param since when the leader's term began, by its clock, or {@code null} likewise
	 * @param fencingToken the leader's term's fencing token, or {@code null} likewise
	 * @param remainingLeaseMillis the lease left by the local clock, in milliseconds,
	 * when this instance leads; {@code null} otherwise
	 * @param locked whether any instance holds the role's lock, or {@code null} when
	 * Redis could not be reached
	 */
	public record RoleDescriptor(String role, boolean contending, boolean leader, @Nullable String instance,
			@Nullable Instant since, @Nullable Long fencingToken, @Nullable Long remainingLeaseMillis,
			@Nullable Boolean locked) {

	}

}
