package io.github.distributedlock.leader;

import java.util.Objects;

/**
 * A {@link Candidate} that does nothing on its own when granted or revoked: for roles
 * whose work runs in {@link LeaderOnly @LeaderOnly} methods or event listeners.
 */
public class DefaultCandidate implements Candidate {

	private final String id;

	private final String role;

	/**
	 * Create a candidate.
	 * @param id the id of this instance, non-blank
	 * @param role the role, non-blank
	 */
	public DefaultCandidate(String id, String role) {
		this.id = requireText(id, "id", role);
		this.role = requireText(role, "role", role);
	}

	private static String requireText(String value, String what, String role) {
		Objects.requireNonNull(value, what + " must not be null");
		if (value.isBlank()) {
			throw new IllegalArgumentException("Leader role '" + role + "': the candidate's " + what + " is blank");
		}
		return value;
	}

	@Override
	public String getRole() {
		return this.role;
	}

	@Override
	public String getId() {
		return this.id;
	}

	@Override
	public void onGranted(LeaderContext context) {
	}

	@Override
	public void onRevoked(LeaderContext context) {
	}

	@Override
	public String toString() {
		return "DefaultCandidate[id=" + this.id + ", role=" + this.role + "]";
	}

}
