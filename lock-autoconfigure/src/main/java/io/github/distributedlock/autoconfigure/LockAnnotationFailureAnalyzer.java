package io.github.distributedlock.autoconfigure;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.github.distributedlock.LockName;
import io.github.distributedlock.aop.LockAnnotationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports invalid {@code @DistributedLock} declarations, one line per problem, with an
 * action for each kind of mistake found.
 */
class LockAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<LockAnnotationException> {

	/**
	 * What to do about each kind of problem, found by what its message says; the first
	 * kind that matches wins.
	 */
	private static final Map<Pattern, String> ACTIONS = actions();

	private static final String GENERIC = "Fix the declarations listed above (docs/annotation.md lists every "
			+ "attribute).";

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockAnnotationException cause) {
		StringBuilder description = new StringBuilder("Invalid @DistributedLock declarations in ")
			.append(cause.getTargetClass().getName())
			.append(":\n");
		for (String problem : cause.getProblems()) {
			description.append("\n    - ").append(problem);
		}
		Set<String> actions = new LinkedHashSet<>();
		for (String problem : cause.getProblems()) {
			actions.add(actionFor(problem));
		}
		String action = (actions.size() == 1) ? actions.iterator().next()
				: "Do each of these:\n\t- " + String.join("\n\t- ", actions);
		return new FailureAnalysis(description.toString(), action, cause);
	}

	static String actionFor(String problem) {
		// "Jobs.report(): expire must be ...": what follows the method names the mistake.
		int method = problem.indexOf("): ");
		String mistake = (method >= 0) ? problem.substring(method + 3) : problem;
		for (Map.Entry<Pattern, String> action : ACTIONS.entrySet()) {
			if (action.getKey().matcher(mistake).find()) {
				return action.getValue();
			}
		}
		return GENERIC;
	}

	private static Map<Pattern, String> actions() {
		Map<Pattern, String> actions = new LinkedHashMap<>();
		actions.put(Pattern.compile("^key '"), "Write the key as a SpEL expression over the method's parameters: "
				+ "#name (compile with -parameters, as Boot's build plugins do) or #p0, #root.method, or @beanName "
				+ "of a bean that exists.");
		actions.put(Pattern.compile("^(fallback|onTimeout is FALLBACK)"),
				"Name, in fallback, a method of the same "
						+ "bean (not the annotated one) that takes the method's parameters, optionally followed by a "
						+ "LockTimeoutException, and returns what the method returns.");
		actions.put(Pattern.compile("is (private|static|final), so"), "Make the method public, not static and not "
				+ "final, and call it through the bean, or lock the work with LockTemplate instead: a Spring AOP "
				+ "proxy only intercepts calls it can override.");
		actions.put(Pattern.compile("ReactiveLockTemplate"),
				"Define a ReactiveLockTemplate bean (Spring Boot does "
						+ "when there is a ReactiveRedisConnectionFactory, as with Lettuce), or lock the work with "
						+ "LockTemplate.");
		actions.put(Pattern.compile("^is a Kotlin suspend function"), "Lock a suspend function with onTimeout = "
				+ "THROW or SKIP, and lock a Flow where it is collected, with the reactive template.");
		actions.put(Pattern.compile("^returns .*no value to return"), "Give the method a nullable return type, "
				+ "for onTimeout = SKIP (a @Scheduled method's default) returns null, or set onTimeout to THROW or "
				+ "FALLBACK.");
		actions.put(Pattern.compile("^returns "), "Return a type whose completion the lock can follow "
				+ "(CompletionStage, Mono, Flux), or take the lock inside the asynchronous work with LockTemplate.");
		actions.put(Pattern.compile("^(expire|waitTime|holdAtLeast)"), "Set each duration once, either as a number "
				+ "in timeUnit (expire = 10 is 10 s) or as a string (expireString = \"10s\"); -1 or \"\" leaves it "
				+ "unset. expire must be at least 1 ms, the others not negative, and holdAtLeast no longer than "
				+ "expire.");
		actions.put(Pattern.compile("^permits"),
				"Set permits to 1 or more for a semaphore, or leave it 0 for a " + "lock.");
		actions.put(Pattern.compile("^scope"), "Give scope a name that is not blank and at most " + LockName.MAX_LENGTH
				+ " characters long, or leave it empty for ClassName.methodName.");
		return actions;
	}

}
