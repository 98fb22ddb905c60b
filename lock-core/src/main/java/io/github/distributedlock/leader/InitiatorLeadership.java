package io.github.distributedlock.leader;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * The leadership over a set of initiators, one per role, and the roles this instance
 * abstains from: known, but left to other instances.
 */
final class InitiatorLeadership implements Leadership {

	private final Iterable<LeaderInitiator> initiators;

	private final Iterable<String> abstaining;

	InitiatorLeadership(Iterable<LeaderInitiator> initiators, Iterable<String> abstaining) {
		this.initiators = Objects.requireNonNull(initiators, "initiators must not be null");
		this.abstaining = Objects.requireNonNull(abstaining, "abstaining must not be null");
	}

	@Override
	public Optional<LeaderContext> context(String role) {
		LeaderInitiator initiator = initiator(role);
		return (initiator != null) ? initiator.getContext() : Optional.empty();
	}

	@Override
	public Set<String> roles() {
		Set<String> roles = new TreeSet<>();
		this.initiators.forEach((initiator) -> roles.add(initiator.getRole()));
		return roles;
	}

	@Override
	public Set<String> abstainingRoles() {
		Set<String> roles = new TreeSet<>();
		this.abstaining.forEach(roles::add);
		return roles;
	}

	/**
	 * Return the initiator of a role, or {@code null} if this instance abstains from it.
	 * @throws IllegalArgumentException if the role is neither contended for nor abstained
	 * from
	 */
	@Nullable LeaderInitiator initiator(String role) {
		LeaderInitiator found = find(role);
		if (found == null && !isAbstaining(role)) {
			throw new IllegalArgumentException("Leader role '" + role + "': no LeaderInitiator contends for it; "
					+ "declare it under distributed-lock.leader.roles or define a Candidate bean");
		}
		return found;
	}

	/**
	 * Return whether this instance knows a role: it contends for it or abstains from it.
	 */
	boolean knows(String role) {
		return find(role) != null || isAbstaining(role);
	}

	private boolean isAbstaining(String role) {
		for (String abstained : this.abstaining) {
			if (abstained.equals(role)) {
				return true;
			}
		}
		return false;
	}

	private @Nullable LeaderInitiator find(String role) {
		for (LeaderInitiator initiator : this.initiators) {
			if (initiator.getRole().equals(role)) {
				return initiator;
			}
		}
		return null;
	}

}
