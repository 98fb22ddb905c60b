package io.github.distributedlock.leader;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What this instance leads, by role, over the application's {@link LeaderInitiator}s.
 * Thread-safe; the answers are snapshots.
 */
public interface Leadership {

	/**
	 * Return the current term of a role, if this instance leads it or its term is ending.
	 * @param role the role
	 * @return the term, or empty, always for a role this instance abstains from
	 * @throws IllegalArgumentException if no initiator contends for the role and this
	 * instance does not abstain from it
	 */
	Optional<LeaderContext> context(String role);

	/**
	 * Return whether this instance leads a role now.
	 * @param role the role
	 * @return whether it leads
	 * @throws IllegalArgumentException if no initiator contends for the role and this
	 * instance does not abstain from it
	 */
	default boolean isLeader(String role) {
		return context(role).map(LeaderContext::isLeader).orElse(false);
	}

	/**
	 * Give up the leadership of a role, if this instance has it.
	 * @param role the role
	 * @throws IllegalArgumentException if no initiator contends for the role and this
	 * instance does not abstain from it
	 */
	default void yieldLeadership(String role) {
		context(role).ifPresent(LeaderContext::yieldLeadership);
	}

	/**
	 * Return the roles this instance contends for.
	 * @return the roles, sorted
	 */
	Set<String> roles();

	/**
	 * Return the roles this instance abstains from: known, but left to other instances,
	 * such as a role disabled in the configuration.
	 * @return the roles, sorted
	 */
	default Set<String> abstainingRoles() {
		return Set.of();
	}

	/**
	 * Return the leadership over the given initiators, looked up on each call, so that a
	 * Spring {@code ObjectProvider} can be given before its beans exist.
	 * @param initiators the initiators
	 * @return the leadership
	 */
	static Leadership of(Iterable<LeaderInitiator> initiators) {
		return of(initiators, List.of());
	}

	/**
	 * Return the leadership over the given initiators and of the roles this instance
	 * abstains from (known, but left to other instances: it never leads them), each
	 * looked up on each call.
	 * @param initiators the initiators
	 * @param abstaining the roles this instance abstains from
	 * @return the leadership
	 */
	static Leadership of(Iterable<LeaderInitiator> initiators, Iterable<String> abstaining) {
		return new InitiatorLeadership(initiators, abstaining);
	}

}
