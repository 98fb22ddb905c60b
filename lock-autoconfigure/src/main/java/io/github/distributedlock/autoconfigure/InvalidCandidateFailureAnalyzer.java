package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.leader.InvalidCandidateException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a leader {@code Candidate} that names no role or no instance, with its class
 * and what to return instead.
 */
class InvalidCandidateFailureAnalyzer extends AbstractFailureAnalyzer<InvalidCandidateException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidCandidateException cause) {
		String id = cause.getCandidateId();
		String description = "The leader candidate " + cause.getCandidateType()
				+ ((id != null) ? " (id '" + id + "')" : "") + " cannot contend: " + cause.getProblem() + ".";
		String action = "Return from getRole() the name of the role the candidate contends for, and from getId() "
				+ "this instance's id, neither null nor blank, as new DefaultCandidate(id, \"outbox\") does. The "
				+ "role is the key of its lock (leader:<role>): candidates without one would all share the lock "
				+ "'leader'.";
		return new FailureAnalysis(description, action, cause);
	}

}
