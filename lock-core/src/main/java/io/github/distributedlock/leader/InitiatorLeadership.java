package io.github.distributedlock.leader;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * The leadership over a set of initiators, one per role.
 */
final class InitiatorLeadership implements Leadership {

	private final Iterable<LeaderInitiator> initiators;

	InitiatorLeadership(Iterable<LeaderInitiator> initiators) {
		this.initiators = Objects.requireNonNull(initiators, "initiators must not be null");
	}

	@Override
	public Optional<LeaderContext> context(String role) {
		return initiator(role).getContext();
	}

	@Override
	public Set<String> roles() {
		Set<String> roles = new TreeSet<>();
		this.initiators.forEach((initiator) -> roles.add(initiator.getRole()));
		return roles;
	}

	LeaderInitiator initiator(String role) {
		LeaderInitiator found = find(role);
		if (found == null) {
			throw new IllegalArgumentException("Leader role '" + role + "': no LeaderInitiator contends for it; "
					+ "declare it under distributed-lock.leader.roles or define a Candidate bean");
		}
		return found;
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
