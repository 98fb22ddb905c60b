package io.github.distributedlock.redis;

import io.github.distributedlock.LockSelfDeadlockException;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of one single-lock acquisition: runs the acquire script of the lock's
 * kind, and keeps what the replies said in the acquisition's {@link Deadline} (the
 * holder's lease, and a wait time that restarts when the lock changes hands if the
 * request is progress-aware). Shared by {@link WaitLoop} and {@link FairWait}. Not
 * thread-safe.
 */
final class LockAttempts {

	private final LockSpec spec;

	private final String owner;

	// The hold this acquisition takes: the same id in every attempt, so that an attempt
	// whose reply was lost is found by the next one rather than counted again.
	private final String hold = UniqueIds.next();

	private final boolean holdsIt;

	// The holds to tell about attempts that may set the lease of a hold of the owner.
	private final @Nullable HoldRegistry leaseWrites;

	private final LockCommands commands;

	private final Deadline deadline;

	private int count;

	private long lastHolderToken = -1;

	// Whether a failed attempt was held back by readers, and so may have set a writer
	// intent.
	private boolean heldBackByReaders;

	private long lastHandOffNanos;

	private long lastSentNanos;

	private @Nullable HandOffRequest handOff;

	private boolean filed;

	/**
	 * @param holds the holds of the template: whether the owner already holds the lock
	 * through a local handle decides whether finding it ours is a re-entry rather than a
	 * hold left by a lost reply, and then each attempt may set the lease of that hold
	 */
	LockAttempts(LockSpec spec, String owner, HoldRegistry holds, LockCommands commands) {
		this.spec = spec;
		this.owner = owner;
		this.holdsIt = holds.holdsLocally(owner, spec.lockKey());
		this.leaseWrites = (this.holdsIt && !LockOwners.isCustom(owner)) ? holds : null;
		this.commands = commands;
		this.deadline = Deadline.start(spec.waitNanos());
	}

	LockSpec spec() {
		return this.spec;
	}

	/**
	 * Return whether a failed attempt was held back by readers, and so may have set a
	 * writer intent.
	 */
	boolean heldBackByReaders() {
		return this.heldBackByReaders;
	}

	String owner() {
		return this.owner;
	}

	boolean holdsIt() {
		return this.holdsIt;
	}

	Deadline deadline() {
		return this.deadline;
	}

	int count() {
		return this.count;
	}

	/**
	 * Carry this request in the following attempts, or none.
	 */
	void carry(@Nullable HandOffRequest request) {
		this.handOff = request;
	}

	@Nullable HandOffRequest handOff() {
		return this.handOff;
	}

	/**
	 * Return whether an attempt has carried a request, which is then filed in Redis.
	 */
	boolean filed() {
		return this.filed;
	}

	long lastSentNanos() {
		return this.lastSentNanos;
	}

	/**
	 * Return when the lock was last seen changing hands, or 0.
	 */
	long lastHandOffNanos() {
		return this.lastHandOffNanos;
	}

	/**
	 * Record that the lock changed hands (a reservation for another waiter was heard).
	 */
	void changedHands(long nanos) {
		this.lastHandOffNanos = nanos;
		if (this.spec.progressAware()) {
			this.deadline.restartAt(nanos);
		}
	}

	/**
	 * Run the acquire script once.
	 */
	AcquireResult attempt() {
		this.count++;
		// Any earlier failed attempt with token 0, not only the last: one that found
		// another writer since does not drop the intent.
		boolean mayHaveIntent = this.heldBackByReaders;
		this.lastSentNanos = System.nanoTime();
		this.filed |= this.handOff != null;
		AcquireResult result = send(mayHaveIntent);
		if (!result.acquired()) {
			long now = System.nanoTime();
			if (this.lastHolderToken != -1 && this.lastHolderToken != result.token()) {
				changedHands(now);
			}
			this.lastHolderToken = result.token();
			this.heldBackByReaders |= result.token() == 0 && this.spec.kind().setsWriterIntent();
			this.deadline.holderSeen(result.holderTtlMillis(), now);
		}
		return result;
	}

	private AcquireResult send(boolean mayHaveIntent) {
		HoldRegistry writes = this.leaseWrites;
		if (writes == null) {
			return this.commands.acquire(this.spec, this.owner, this.hold, this.deadline.remainingMillis(),
					mayHaveIntent, this.holdsIt, this.handOff);
		}
		// A re-entry sets the lease of the hold the owner has: the registry keeps
		// counting the
		// owner until the reply, plus the lease, or until its handles are closed if none
		// comes.
		writes.sending(this.owner, this.spec.lockKey());
		AcquireResult result;
		try {
			result = this.commands.acquire(this.spec, this.owner, this.hold, this.deadline.remainingMillis(),
					mayHaveIntent, this.holdsIt, this.handOff);
		}
		catch (RuntimeException ex) {
			writes.failed(this.owner, this.spec.lockKey());
			throw ex;
		}
		writes.replied(this.owner, this.spec.lockKey(), result.acquired() ? this.spec.leaseMillis() : -1);
		return result;
	}

	/**
	 * Throw if the reply says the owner holds the lock and may not take it again.
	 */
	void checkSelfDeadlock(AcquireResult result) {
		if (result.selfDeadlock()) {
			throw new LockSelfDeadlockException(this.spec.name());
		}
	}

	/**
	 * Return what an attempt that took the lock won.
	 * @param sentNanos the clock reading taken before that attempt was sent
	 */
	Grant grant(AcquireResult result, long sentNanos, boolean waited) {
		return new Grant(this.spec, this.owner, result.token(), this.hold, sentNanos, waited, this.deadline.elapsed(),
				this.count);
	}

}
