package io.github.distributedlock.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.distributedlock.leader.UnknownLeaderRoleException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports {@code @LeaderOnly} methods whose role this instance neither contends for nor
 * abstains from, one line per role with its methods, and how to declare each role.
 */
class UnknownLeaderRoleFailureAnalyzer extends AbstractFailureAnalyzer<UnknownLeaderRoleException> {

	private static final String PREFIX = "distributed-lock.leader.roles.";

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownLeaderRoleException cause) {
		Map<String, List<String>> methodsByRole = cause.getMethodsByRole();
		StringBuilder description = new StringBuilder(
				"@LeaderOnly methods name leader roles that this instance neither contends for nor abstains from:\n");
		methodsByRole.forEach((role, methods) -> description.append("\n    - role '")
			.append(role)
			.append("': ")
			.append(String.join(", ", methods)));
		String enabled = methodsByRole.keySet()
			.stream()
			.map((role) -> PREFIX + role + ".enabled=true")
			.collect(Collectors.joining(", "));
		String action = "Declare each role: set " + enabled + " for this instance to contend for it, or the "
				+ "same to false to keep this instance out of its election (its @LeaderOnly calls are then "
				+ "skipped); or define a Candidate or LeaderInitiator bean for it. If a role is misspelled, "
				+ "correct the annotation.";
		return new FailureAnalysis(description.toString(), action, cause);
	}

}
