package io.github.distributedlock.aop;

import java.util.List;

/**
 * Thrown when the context starts if a {@link io.github.distributedlock.DistributedLock
 * &#64;DistributedLock} declaration can't work: each problem names the class, the method
 * and what is wrong.
 */
public class LockAnnotationException extends IllegalStateException {

	private final Class<?> targetClass;

	private final List<String> problems;

	/**
	 * Create an exception for the problems found in one class.
	 * @param targetClass the class whose methods are annotated
	 * @param problems one message per problem, each naming the method
	 */
	public LockAnnotationException(Class<?> targetClass, List<String> problems) {
		super(message(targetClass, problems));
		this.targetClass = targetClass;
		this.problems = List.copyOf(problems);
	}

	private static String message(Class<?> targetClass, List<String> problems) {
		String header = (problems.size() == 1) ? "Invalid @DistributedLock in " + targetClass.getName() + ": "
				: problems.size() + " invalid @DistributedLock declarations in " + targetClass.getName() + ": ";
		return header + String.join("; ", problems);
	}

	/**
	 * Return the class whose methods are annotated.
	 * @return the class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

	/**
	 * Return the problems, each naming the method.
	 * @return the problems
	 */
	public List<String> getProblems() {
		return this.problems;
	}

}
