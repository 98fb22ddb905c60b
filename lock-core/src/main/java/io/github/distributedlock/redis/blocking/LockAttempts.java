package io.github.distributedlock.redis.blocking;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.AttemptOutcome;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.redis.core.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * The blocking engine's attempts of one single-lock acquisition: sends the attempt its
 * {@link Acquisition} decided on, on the caller's thread, and hands the reply back to it.
 * Also tells the template's {@link HoldRegistry} about an attempt that may set the lease
 * of a hold the owner already has (a re-entry). Shared by {@link WaitLoop} and
 * {@link FairWait}. Not thread-safe.
 */
final class LockAttempts {

	private final Waiting waiting;

	// The holds to tell about attempts that may set the lease of a hold of the owner.
	private final @Nullable HoldRegistry leaseWrites;

	private final LockCommands commands;

	LockAttempts(Waiting waiting, HoldRegistry holds, LockCommands commands) {
		this.waiting = waiting;
		Acquisition acquisition = waiting.acquisition();
		this.leaseWrites = (acquisition.holdsIt() && !LockOwners.isCustom(acquisition.owner())) ? holds : null;
		this.commands = commands;
	}

	Acquisition acquisition() {
		return this.waiting.acquisition();
	}

	/**
	 * Run the acquire script once.
	 * @param line the line at whose head the attempt is made, or {@code null}
	 * @param waited whether the caller waited before for a reason the attempts don't show
	 * @return the reply and what it means
	 * @throws LockSelfDeadlockException if the owner holds the lock and may not take it
	 * again
	 */
	Reply attempt(@Nullable WaitLine line, boolean waited) {
		while (true) {
			Acquisition.Attempt attempt = acquisition().next(line);
			AcquireResult result = send(attempt);
			AttemptOutcome outcome = acquisition().replied(attempt, result, waited);
			if (outcome instanceof AttemptOutcome.Failed failed) {
				throw failed.error();
			}
			if (!(outcome instanceof AttemptOutcome.Late late)) {
				return new Reply(result, outcome);
			}
			// Granted too late to use: again at once, from where this attempt was made.
			if (!acquisition().retriesLateGrant()) {
				releaseQuietly(late.grant());
				return new Reply(result, AttemptOutcome.OVER);
			}
		}
	}

	/**
	 * Undo an attempt whose reply an interrupt threw away: it may have run and made this
	 * acquisition a holder, which nobody would release before its lease ends (and the
	 * owner's next acquisition would re-enter). One more attempt with the same hold id
	 * finds such a hold, and what it finds, or takes now, is released.
	 */
	void undoAttempt() {
		try {
			Acquisition.Attempt attempt = acquisition().next(null);
			releaseQuietly(attempt, send(attempt, true));
		}
		catch (RuntimeException ex) {
			// The hold, if the attempt took one, ends with its lease.
		}
	}

	/**
	 * Release what an attempt the caller no longer wants won, in time or late; its line
	 * learns of the reply as of any ({@link Waiting#unwanted}).
	 * @param attempt the attempt
	 * @param result its reply
	 */
	void releaseQuietly(Acquisition.Attempt attempt, AcquireResult result) {
		Grant unwanted = this.waiting.unwanted(attempt, result);
		if (unwanted != null) {
			releaseQuietly(unwanted);
		}
	}

	/**
	 * Release a grant that came too late to use: the hold may still be in Redis, and
	 * otherwise ends with its lease.
	 */
	void releaseQuietly(Grant grant) {
		try {
			this.commands.release(grant);
		}
		catch (RuntimeException ex) {
			// The hold ends with its lease.
		}
	}

	/**
	 * Send one attempt and return its reply, telling the template's holds about it if it
	 * may set the lease of a hold the owner has.
	 */
	AcquireResult send(Acquisition.Attempt attempt) {
		return send(attempt, false);
	}

	/**
	 * Send one attempt, as {@link #send(Acquisition.Attempt)}.
	 * @param undoing whether it undoes one whose reply an interrupt threw away
	 */
	private AcquireResult send(Acquisition.Attempt attempt, boolean undoing) {
		LockSpec spec = acquisition().spec();
		String owner = acquisition().owner();
		HoldRegistry writes = this.leaseWrites;
		if (writes == null) {
			return this.commands.acquire(spec, owner, attempt.hold(), attempt.remainingWaitMillis(),
					attempt.mayHaveIntent(), attempt.holdsIt(), attempt.request(), undoing);
		}
		// A re-entry sets the lease of the hold the owner has: the registry keeps
		// counting the owner until the reply, plus the lease, or until its handles are
		// closed if none comes.
		writes.sending(owner, spec.lockKey());
		AcquireResult result;
		try {
			result = this.commands.acquire(spec, owner, attempt.hold(), attempt.remainingWaitMillis(),
					attempt.mayHaveIntent(), attempt.holdsIt(), attempt.request(), undoing);
		}
		catch (RuntimeException ex) {
			writes.failed(owner, spec.lockKey());
			throw ex;
		}
		writes.replied(owner, spec.lockKey(), result.acquired() ? spec.leaseMillis() : -1);
		return result;
	}

	/**
	 * A reply and what it means.
	 *
	 * @param result the script's reply
	 * @param outcome what the acquisition made of it
	 */
	record Reply(AcquireResult result, AttemptOutcome outcome) {

		/**
		 * Return what the attempt won, or {@code null} if it did not take the lock.
		 */
		@Nullable Grant grant() {
			return (this.outcome instanceof AttemptOutcome.Held held) ? held.grant() : null;
		}

	}

}
