package io.github.distributedlock.chaos;

import io.github.distributedlock.LockMode;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.ProtocolTimings;

/**
 * A kind of hold, the request of a stranger that it excludes, and the scripts and key
 * that carry it in Redis: what tests that run one scenario for every kind vary.
 */
enum HoldKind {

	EXCLUSIVE("release.lua", "extend.lua"), READ("release-read.lua", "extend-read.lua"),
	FAIR("release-fair.lua", "extend.lua"), PERMIT("release-permit.lua", "extend-permit.lua");

	private final String releaseScript;

	private final String extendScript;

	HoldKind(String releaseScript, String extendScript) {
		this.releaseScript = releaseScript;
		this.extendScript = extendScript;
	}

	LockRequest.Builder holding(LockRequest.Builder request) {
		return switch (this) {
			case EXCLUSIVE -> request;
			case READ -> request.mode(LockMode.READ);
			case FAIR -> request.fair(true);
			case PERMIT -> request.permits(1);
		};
	}

	LockRequest.Builder excluded(LockRequest.Builder request) {
		return switch (this) {
			case EXCLUSIVE -> request;
			case READ -> request.mode(LockMode.WRITE);
			case FAIR -> request.fair(true);
			case PERMIT -> request.permits(1);
		};
	}

	/**
	 * Return the script that releases a hold of this kind.
	 */
	String releaseScript() {
		return this.releaseScript;
	}

	/**
	 * Return the script that extends a hold of this kind, and through which the watchdog
	 * renews a read hold or a permit.
	 */
	String extendScript() {
		return this.extendScript;
	}

	/**
	 * Return the key whose expiry is the hold's lease in Redis.
	 * @param lockKey the lock key
	 */
	String leaseKey(String lockKey) {
		return switch (this) {
			case EXCLUSIVE, FAIR -> lockKey;
			case READ -> ProtocolTimings.readersKey(lockKey);
			case PERMIT -> ProtocolTimings.permitsKey(lockKey);
		};
	}

}
