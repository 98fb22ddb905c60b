package io.github.distributedlock.inmemory;

import io.github.distributedlock.LockName;

/**
 * One lock a caller asks for, with every setting resolved.
 */
record Claim(LockName name, HoldKind kind, String owner, boolean reentrant, boolean fair, int permits, long leaseNanos,
		boolean renewed, long holdAtLeastNanos) {

}
