package io.github.distributedlock.autoconfigure;

/**
 * Thrown at startup when the Redis server of the locks has a {@code maxmemory-policy}
 * that can evict lock keys, and {@code distributed-lock.allow-eviction} is not set.
 */
class EvictingRedisException extends IllegalStateException {

	private final String server;

	private final String policy;

	/**
	 * Create an exception.
	 * @param server the server, such as {@code 127.0.0.1:6379}
	 * @param policy its {@code maxmemory-policy}, such as {@code allkeys-lru}
	 */
	EvictingRedisException(String server, String policy) {
		super("Redis at " + server + " has maxmemory-policy '" + policy + "', which can evict lock keys, so that a "
				+ "second caller takes a lock that is still held. Set maxmemory-policy noeviction, or set "
				+ EvictionPolicyCheck.ALLOW_PROPERTY + "=true to accept the risk.");
		this.server = server;
		this.policy = policy;
	}

	String getServer() {
		return this.server;
	}

	String getPolicy() {
		return this.policy;
	}

}
