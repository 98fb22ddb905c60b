package io.github.distributedlock.leader;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Thrown when the context starts if a {@link LeaderOnly @LeaderOnly} method names a role
 * that this instance neither contends for nor stays out of: no {@link LeaderInitiator}
 * has it and it is not among the roles given as abstaining, so the call could never be
 * decided. Usually a misspelled or undeclared role.
 */
public class UnknownLeaderRoleException extends IllegalStateException {

	private final Map<String, List<String>> methodsByRole;

	/**
	 * Create an exception.
	 * @param methodsByRole each unknown role with the methods that name it, such as
	 * {@code Relay.publish}
	 */
	public UnknownLeaderRoleException(Map<String, List<String>> methodsByRole) {
		super(message(methodsByRole));
		Map<String, List<String>> sorted = new TreeMap<>();
		methodsByRole.forEach((role, methods) -> sorted.put(role, methods.stream().sorted().toList()));
		this.methodsByRole = Collections.unmodifiableMap(sorted);
	}

	private static String message(Map<String, List<String>> methodsByRole) {
		StringJoiner roles = new StringJoiner("; ");
		new TreeMap<>(methodsByRole).forEach((role, methods) -> roles
			.add("@LeaderOnly(\"" + role + "\") on " + String.join(", ", methods.stream().sorted().toList())));
		return "No LeaderInitiator contends for these roles and none is declared as abstaining: " + roles;
	}

	/**
	 * Return each unknown role, sorted, with the methods that name it.
	 * @return the methods by role
	 */
	public Map<String, List<String>> getMethodsByRole() {
		return this.methodsByRole;
	}

}
