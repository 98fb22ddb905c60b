package io.github.distributedlock.redis.blocking;

import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.OwnerHolds;
import org.jspecify.annotations.Nullable;

/**
 * Tells the {@link HoldRegistry} of the driver's attempts that may set the lease of a
 * hold the owner has (a re-entry of a thread owner holding the lock through a handle), so
 * that it keeps counting the owner. Thread-safe.
 */
final class LeaseWrites implements DriverCommands.AttemptWatch {

	private final HoldRegistry holds;

	LeaseWrites(HoldRegistry holds) {
		this.holds = holds;
	}

	@Override
	public void sending(LockSpec spec, Acquisition.Attempt attempt) {
		if (OwnerHolds.writesLease(attempt)) {
			this.holds.sending(attempt.owner(), spec.lockKey());
		}
	}

	@Override
	public void ended(LockSpec spec, Acquisition.Attempt attempt, @Nullable AcquireResult result) {
		if (OwnerHolds.writesLease(attempt)) {
			this.holds.attempted(attempt.owner(), spec, result);
		}
	}

}
