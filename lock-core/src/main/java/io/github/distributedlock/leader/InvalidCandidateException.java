package io.github.distributedlock.leader;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a {@link Candidate} cannot contend: its {@link Candidate#getRole() role} or
 * {@link Candidate#getId() id} is null or blank. The role is the key of its lock
 * ({@code leader:<role>}): candidates without one would all share the lock
 * {@code leader}.
 */
public class InvalidCandidateException extends IllegalArgumentException {

	private final String candidateType;

	private final @Nullable String candidateId;

	private final String problem;

	/**
	 * Create an exception.
	 * @param candidate the candidate
	 * @param problem what is wrong, such as {@code getRole() returned null}
	 */
	public InvalidCandidateException(Candidate candidate, String problem) {
		this(candidate.getClass().getName(), candidate.getId(), problem);
	}

	private InvalidCandidateException(String candidateType, @Nullable String candidateId, String problem) {
		super("Leader candidate " + candidateType + ((candidateId != null) ? " (id '" + candidateId + "')" : "") + ": "
				+ problem + "; a candidate must name the role it contends for and this instance");
		this.candidateType = candidateType;
		this.candidateId = candidateId;
		this.problem = problem;
	}

	/**
	 * Return the class of the candidate.
	 * @return the class name
	 */
	public String getCandidateType() {
		return this.candidateType;
	}

	/**
	 * Return the candidate's id, if it has one.
	 * @return the id, or {@code null}
	 */
	public @Nullable String getCandidateId() {
		return this.candidateId;
	}

	/**
	 * Return what is wrong.
	 * @return the problem, such as {@code getRole() returned null}
	 */
	public String getProblem() {
		return this.problem;
	}

}
