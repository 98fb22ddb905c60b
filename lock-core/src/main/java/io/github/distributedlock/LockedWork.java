package io.github.distributedlock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the work of {@link LockTemplate#execute} under a hold, releases the hold, and
 * decides what the caller sees:
 * <ul>
 * <li>the work's exception, with a failed release suppressed in it, when the work
 * threw;</li>
 * <li>{@link LockLeaseLostException} when the section was interrupted under
 * {@link LeaseLossPolicy#INTERRUPT}, with the work's exception and the release's
 * suppressed;</li>
 * <li>the release's {@link LockLeaseLostException} when Redis says the hold was
 * lost;</li>
 * <li>the work's result when the release failed ({@link LockAccessException}) but the
 * work ended before its lease could have run out, so that it ran wholly under the lock:
 * the lock ends with its lease;</li>
 * <li>{@link LockLeaseLostException}, caused by the release's failure, when the lease had
 * run out (or was found lost) before the work ended and the release failed.</li>
 * </ul>
 */
final class LockedWork {

	private static final Log logger = LogFactory.getLog(LockedWork.class);

	private LockedWork() {
	}

	static <T extends @Nullable Object> T run(LockHandle handle, LeaseLossPolicy onLeaseLost,
			LockCallback<T> callback) {
		LeaseLossInterrupt interrupt = (onLeaseLost == LeaseLossPolicy.INTERRUPT) ? LeaseLossInterrupt.enter(handle)
				: null;
		T result;
		try {
			result = LockContextHolder.call(handle, callback);
		}
		catch (Throwable ex) {
			if (interrupt != null && interrupt.leave()) {
				throw lostDuringWork(handle, ex);
			}
			releaseAfter(handle, ex);
			throw ex;
		}
		if (interrupt != null && interrupt.leave()) {
			throw lostDuringWork(handle, null);
		}
		// Measured before the release, which ends the lease. The local estimate is
		// conservative: Redis keeps the lease at least this long.
		boolean endedInLease = !handle.remainingLease().isZero();
		release(handle, endedInLease);
		return result;
	}

	private static void release(LockHandle handle, boolean endedInLease) {
		try {
			handle.close();
		}
		catch (LockAccessException ex) {
			if (!endedInLease) {
				throw new LockLeaseLostException(handle.name(), handle.fencingToken(),
						"its lease ran out before the work ended, and its release failed", ex);
			}
			for (Throwable other : ex.getSuppressed()) {
				if (other instanceof LockLeaseLostException) {
					// A multi-lock, one of whose holds Redis found lost: a lost lease.
					throw new LockLeaseLostException(handle.name(), handle.fencingToken(),
							"one of its locks was found lost at the release, and another release failed", ex);
				}
			}
			logger.warn("Lock '" + handle.name() + "': the work ended under the lock, but its release failed; "
					+ "returning the work's result. The lock stays taken until its lease ends", ex);
		}
	}

	private static void releaseAfter(LockHandle handle, Throwable workFailure) {
		try {
			handle.close();
		}
		catch (RuntimeException releaseFailure) {
			// The work's exception is what the caller needs, as with try-with-resources.
			workFailure.addSuppressed(releaseFailure);
		}
	}

	private static LockLeaseLostException lostDuringWork(LockHandle handle, @Nullable Throwable workFailure) {
		LockLeaseLostException lost = new LockLeaseLostException(handle.name(), handle.fencingToken(),
				"lost while the work ran, which was interrupted");
		if (workFailure != null) {
			// Most likely what the interrupt made of the work.
			lost.addSuppressed(workFailure);
		}
		try {
			handle.close();
		}
		catch (RuntimeException releaseFailure) {
			lost.addSuppressed(releaseFailure);
		}
		return lost;
	}

}
