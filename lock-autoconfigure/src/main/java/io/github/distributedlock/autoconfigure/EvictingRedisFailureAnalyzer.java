package io.github.distributedlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a Redis server whose {@code maxmemory-policy} can evict lock keys.
 */
class EvictingRedisFailureAnalyzer extends AbstractFailureAnalyzer<EvictingRedisException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EvictingRedisException cause) {
		String description = "Redis at " + cause.getServer() + " has maxmemory-policy '" + cause.getPolicy()
				+ "', which can evict lock keys. When memory runs short, Redis deletes keys to make room (a "
				+ "volatile-* policy deletes keys that have a time to live, as every lock key has; an allkeys-* "
				+ "policy deletes any key). A lock whose key was evicted is free for a second caller while its "
				+ "holder still believes it holds it; the holder learns of it only when it releases or extends "
				+ "the lock.";
		String action = "Do one of these:\n"
				+ "\t- set maxmemory-policy noeviction on that server (CONFIG SET maxmemory-policy noeviction, "
				+ "redis.conf, or your provider's parameter group), or keep the locks on a Redis of their own that "
				+ "does not evict;\n" + "\t- set " + EvictionPolicyCheck.ALLOW_PROPERTY
				+ "=true to start anyway, accepting that a lock can be held twice once its key is evicted "
				+ "(a warning is logged at each start).";
		return new FailureAnalysis(description, action, cause);
	}

}
