package io.github.distributedlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * Reports a lock template that could not reach Redis at startup: the failure passed
 * through the engine's code. Redis failures of other beans are left to other analyzers.
 */
class RedisUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<RedisConnectionFailureException> {

	private static final String ENGINE_PACKAGE = "io.github.distributedlock.redis.";

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, RedisConnectionFailureException cause) {
		if (!startedByLockLibrary(rootFailure)) {
			return null;
		}
		String description = "The distributed lock template could not connect to Redis at startup: " + describe(cause);
		String action = "Make sure Redis is running and reachable with the spring.data.redis.* settings "
				+ "(url or host and port, ssl, username and password, sentinel or cluster nodes, timeout): "
				+ "the lock template needs Redis when it starts. Setting distributed-lock.enabled=false does not "
				+ "work around this: it removes the LockTemplate bean, so beans that inject it fail to start, "
				+ "and @DistributedLock methods then run without a lock.";
		return new FailureAnalysis(description, action, cause);
	}

	/**
	 * Describe the failure by the client's "Unable to connect to host:port" and the root
	 * cause, such as "Connection refused".
	 */
	private static String describe(Throwable cause) {
		String target = cause.getMessage();
		Throwable root = cause;
		for (Throwable candidate = cause; candidate != null; candidate = candidate.getCause()) {
			String message = candidate.getMessage();
			if (message != null && message.startsWith("Unable to connect to ")) {
				target = message;
			}
			root = candidate;
			if (candidate.getCause() == candidate) {
				break;
			}
		}
		String rootMessage = root.getMessage();
		return (rootMessage == null || rootMessage.equals(target)) ? String.valueOf(target)
				: target + " (" + rootMessage + ")";
	}

	private static boolean startedByLockLibrary(Throwable failure) {
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			for (StackTraceElement frame : candidate.getStackTrace()) {
				if (frame.getClassName().startsWith(ENGINE_PACKAGE)
						|| frame.getClassName().equals(EvictionPolicyCheck.class.getName())) {
					return true;
				}
			}
			if (candidate.getCause() == candidate) {
				break;
			}
		}
		return false;
	}

}
