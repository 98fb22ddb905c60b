package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.aop.LockAnnotationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports invalid {@code @DistributedLock} declarations, one line per problem.
 */
class LockAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<LockAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockAnnotationException cause) {
		StringBuilder description = new StringBuilder("Invalid @DistributedLock declarations in ")
			.append(cause.getTargetClass().getName())
			.append(":\n");
		for (String problem : cause.getProblems()) {
			description.append("\n    - ").append(problem);
		}
		String action = "Fix the declarations listed above. A key is a SpEL expression over the method's "
				+ "parameters (#name with -parameters, or #p0), #root and @beans; a fallback is a method of the "
				+ "same bean that takes the same parameters, optionally followed by a LockTimeoutException.";
		return new FailureAnalysis(description.toString(), action, cause);
	}

}
