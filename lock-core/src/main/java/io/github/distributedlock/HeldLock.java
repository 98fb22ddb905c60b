package io.github.distributedlock;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one hold by this process, for operators.
 *
 * @param name the lock
 * @param thread the name of the thread that acquired it
 * @param since when it was acquired
 * @param remainingLease the conservative local estimate of the lease left
 * @param fencingToken the fencing token
 * @param origin where it was requested (for example the annotated method), if known
 */
public record HeldLock(LockName name, String thread, Instant since, Duration remainingLease, long fencingToken,
		@Nullable String origin) {

}
