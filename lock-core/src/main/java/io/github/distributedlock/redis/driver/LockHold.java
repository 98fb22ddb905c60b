package io.github.distributedlock.redis.driver;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HoldLife;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a lock, for both templates: its lease by the local clock
 * ({@link HoldLife}), and its extension, renewal ({@link Renewals}) and release, each a
 * script on a {@link LockPort}. A reply that says the hold is gone or taken makes it
 * lost; so do renewals unanswered until its lease is over. It does nothing after a port
 * call returns, so a port may answer inside the call. Thread-safe.
 */
public class LockHold {

	/** What a release reports when its reply never came. */
	public static final long UNKNOWN = Long.MIN_VALUE;

	private final Grant grant;

	private final HoldLife life;

	private final boolean handOff;

	private final Events events;

	// The lines a hold of a cohort passes to and tells of the cohort's end, or null.
	private final @Nullable CohortRelease cohorts;

	private final AtomicBoolean released = new AtomicBoolean();

	private final AtomicBoolean lost = new AtomicBoolean();

	// When the lease Redis keeps for this hold's last write has ended at the latest:
	// Redis set it before replying, so counted from after the reply.
	private volatile long redisLeaseBoundNanos;

	/**
	 * @param grant what the acquisition won; the lease counts from its {@code sentNanos}
	 * @param grantedNanos when the granting reply was read
	 * @param handOff whether its release reserves the lock for the oldest waiting request
	 * @param cohorts the template's lines, for a hold whose grant names a cohort: its
	 * release may pass it in memory, its last release ends the cohort, and a loss stops
	 * its passes (docs/design/cohorting.md)
	 */
	public LockHold(Grant grant, long grantedNanos, boolean handOff, Events events, @Nullable CohortRelease cohorts) {
		this.grant = grant;
		this.cohorts = cohorts;
		// A cohort's holds share one lease end, the Redis hold's (cohorting.md, rule 6).
		Cohort cohort = grant.cohort();
		this.life = (cohort != null) ? new HoldLife(grant, grantedNanos, cohort.leaseEnd())
				: new HoldLife(grant, grantedNanos);
		this.handOff = handOff;
		this.events = events;
		this.redisLeaseBoundNanos = grantedNanos + TimeUnit.MILLISECONDS.toNanos(grant.spec().leaseMillis());
	}

	public Grant grant() {
		return this.grant;
	}

	public LockSpec spec() {
		return this.grant.spec();
	}

	public LockName name() {
		return this.grant.spec().name();
	}

	long nextRenewalNanos() {
		return this.life.nextRenewalNanos();
	}

	/**
	 * Return when the lease ends by the local clock.
	 */
	public long leaseEndNanos() {
		return this.life.leaseEndNanos();
	}

	/**
	 * Return the latest time Redis may keep the lease of this hold's last write.
	 */
	public long redisLeaseBoundNanos() {
		return this.redisLeaseBoundNanos;
	}

	public boolean isReleased() {
		return this.released.get();
	}

	public boolean isLost() {
		return this.lost.get();
	}

	public boolean isLive(long nowNanos) {
		return !this.released.get() && !this.lost.get() && !this.life.isOver(nowNanos);
	}

	public Duration remainingLease(long nowNanos) {
		if (this.released.get() || this.lost.get()) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(this.life.remainingNanos(nowNanos));
	}

	/**
	 * Lengthen the lease to at least the given one, never shortening it in Redis.
	 * @param done told 1 once Redis confirmed it, or a {@link LockLeaseLostException} if
	 * the hold was released, gone or taken, or the port's failure; a hold found gone
	 * after its release is not lost
	 */
	public void extend(LockPort port, long leaseMillis, Completion<Long> done) {
		if (this.released.get()) {
			done.failed(new LockLeaseLostException(name(), this.grant.shownToken(), "extended after it was released"));
			return;
		}
		LockSpec spec = spec();
		ScriptCall call = spec.kind()
			.extend(spec, this.grant.owner(), this.grant.token(), this.grant.hold(), leaseMillis);
		long sentNanos = port.nanoTime();
		this.events.sending(this);
		port.run(name(), "extend", call, Completion.of((reply) -> {
			long result = number(reply);
			if (result < 0) {
				this.events.replied(this, -1);
				// A hold released meanwhile is no longer this handle's to lose: its
				// release dropped its field, or it was passed on, and the cohort's hold
				// is the next holder's, whose own replies tell it (rule 8). Either way,
				// no more passes.
				boolean released = this.released.get();
				if (!released) {
					markLost(true);
				}
				cohortLost();
				done.failed(new LockLeaseLostException(name(), this.grant.shownToken(),
						released ? "extended after it was released" : lostReason("extended", result)));
				return;
			}
			this.life.extended(confirmedFrom(sentNanos, port.nanoTime()), leaseMillis);
			setLease(port.nanoTime(), leaseMillis);
			done.granted(result);
		}, (error) -> {
			this.events.failed(this);
			done.failed(error);
		}));
	}

	/**
	 * Release the hold, keeping the lock taken by nobody for what is left of its minimum
	 * hold if it is the last hold; a second release does nothing.
	 * @param done told the holds of the owner left, or a {@link LockLeaseLostException}
	 * if the hold was gone or taken, or the port's failure
	 */
	public void release(LockPort port, Completion<Long> done) {
		release(port, done, true);
	}

	/**
	 * Release a hold its caller never had (a lock a multi-lock took on its way, given
	 * back as the multi-lock fails or starts over), as {@link #release} does but without
	 * keeping the lock for its minimum hold, as no grant that nobody uses is kept
	 * ({@link DriverCommands#releaseUnused}).
	 */
	public void releaseUnused(LockPort port, Completion<Long> done) {
		release(port, done, false);
	}

	private void release(LockPort port, Completion<Long> done, boolean keep) {
		if (!this.released.compareAndSet(false, true)) {
			done.granted(0L);
			return;
		}
		LockSpec spec = spec();
		long keepMillis = keep ? this.life.minimumHoldLeftMillis(port.nanoTime()) : 0;
		// The last local hold of a cohort's holder passes in memory, if it may (rule 4),
		// or ends the cohort once its release is answered; a pass of any other would
		// leave a hold of the same owner in Redis.
		Cohort cohort = this.grant.cohort();
		CohortRelease lines = this.cohorts;
		boolean ending = false;
		if (cohort != null && lines != null && cohort.releasing()) {
			Runnable handOver = lines.pass(this.grant, keepMillis);
			if (handOver != null) {
				// The Redis hold lives on, for the next holder, who hears of it once this
				// release is told.
				this.events.released(this, 1);
				this.events.releasedAfter(this, Duration.ofNanos(this.life.heldNanos(port.nanoTime())));
				done.granted(0L);
				handOver.run();
				return;
			}
			// No pass from now on, nor a re-entry under the cohort's owner.
			cohort.holderLeft();
			ending = true;
		}
		boolean ends = ending;
		ScriptCall call = spec.kind()
			.release(spec, this.grant.owner(), releasedToken(), this.grant.hold(), this.handOff, keepMillis);
		port.run(name(), "release", call, Completion.of((reply) -> {
			long result = number(reply);
			this.events.released(this, result);
			if (ends) {
				endCohort();
			}
			else if (result == 0) {
				// No hold of the cohort's owner left in Redis.
				cohortLost();
			}
			if (result < 0) {
				markLost(true);
				done.failed(
						new LockLeaseLostException(name(), this.grant.shownToken(), lostReason("released", result)));
				return;
			}
			this.events.releasedAfter(this, Duration.ofNanos(this.life.heldNanos(port.nanoTime())));
			done.granted(result);
		}, (error) -> {
			if (error instanceof LockAccessException failure) {
				this.events.releaseFailed(this, failure);
			}
			this.events.released(this, UNKNOWN);
			if (ends) {
				endCohort();
			}
			done.failed(error);
			if (DriverCommands.mayHaveRun(error)) {
				// It may never have run (cancelled before it was written): sent again
				// until Redis answers, so that the hold ends then, not with its lease.
				port.schedule(() -> DriverCommands.sendUntilAnswered(port, name(), "release", call),
						DriverCommands.UNDO_RETRY_NANOS);
			}
		}));
	}

	/**
	 * Note that a renewal of this hold is about to be sent; followed by one of
	 * {@link #renewed}, {@link #notRenewed} or {@link #renewalFailed}.
	 */
	public void renewing() {
		this.events.sending(this);
	}

	/**
	 * Record a renewal Redis confirmed, measured from when it was sent. Its reply may
	 * come after a later extension's: the lease end only moves later ({@link HoldLife}).
	 * @param repliedNanos when the reply was read
	 */
	public void renewed(long sentNanos, long repliedNanos) {
		this.life.renewed(confirmedFrom(sentNanos, repliedNanos));
		setLease(repliedNanos, spec().leaseMillis());
	}

	// The rules below are methods so that the simulation's tests can plant a bug into
	// each of them, in a subclass (PlantedHoldBugs), and show that the checks find it.

	/**
	 * Return when a confirmed lease (a renewal's, an extension's) counts from: its send,
	 * since Redis set it after that; never its reply, which may be read late.
	 */
	long confirmedFrom(long sentNanos, long repliedNanos) {
		return sentNanos;
	}

	/**
	 * Return the token a release names: the one Redis records for the hold, not the one a
	 * cohort's passed holder shows (docs/design/cohorting.md, rule 3).
	 */
	long releasedToken() {
		return this.grant.token();
	}

	/**
	 * Record a renewal whose reply said the hold is gone or taken: it is lost, unless
	 * released meanwhile.
	 */
	void notRenewed() {
		this.events.replied(this, -1);
		if (!this.released.get()) {
			markLost(true);
		}
		// Even for a hold passed on: the cohort's hold may be gone (rule 8).
		cohortLost();
	}

	/**
	 * Record a renewal that got no answer (Redis may still run it) or was never sent; the
	 * hold is lost once its lease is over ({@link HoldLife#renewalFailed}), unless
	 * released meanwhile.
	 * @param sent whether {@link #renewing} was called for it
	 * @return whether its lease is over by the local clock
	 */
	boolean renewalFailed(long nowNanos, boolean sent) {
		if (sent) {
			this.events.failed(this);
		}
		if (!this.life.renewalFailed(nowNanos)) {
			return false;
		}
		if (!this.released.get()) {
			markLost(false);
		}
		return true;
	}

	private void setLease(long repliedNanos, long leaseMillis) {
		long bound = repliedNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		// Never earlier: a reply may come after a later one, and another hold of this
		// owner may rely on the longer lease.
		if (bound - this.redisLeaseBoundNanos > 0) {
			this.redisLeaseBoundNanos = bound;
		}
		this.events.replied(this, leaseMillis);
	}

	private void markLost(boolean goneFromRedis) {
		if (this.lost.compareAndSet(false, true)) {
			this.events.lost(this, goneFromRedis);
		}
		cohortLost();
	}

	/** The cohort holder's last local hold went through Redis: the cohort ends. */
	private void endCohort() {
		CohortRelease lines = this.cohorts;
		if (lines != null && this.grant.cohort() != null) {
			lines.ended(this.grant);
		}
	}

	/** A hold of a cohort may be gone: the cohort passes no more (rule 8). */
	private void cohortLost() {
		CohortRelease lines = this.cohorts;
		if (lines != null && this.grant.cohort() != null) {
			lines.lost(this.grant);
		}
	}

	private static long number(@Nullable Object reply) {
		return (reply instanceof Number number) ? number.longValue() : -1;
	}

	private static String lostReason(String operation, long result) {
		return (result == -1) ? operation + " after the lock had already expired"
				: operation + " after another owner had taken the lock";
	}

	@Override
	public String toString() {
		return "LockHold[" + name() + ", token=" + this.grant.shownToken() + "]";
	}

	/**
	 * Told what becomes of a hold, on the thread the port answers on; must not block.
	 */
	public interface Events {

		/** Hears nothing. */
		Events NONE = new Events() {
		};

		/**
		 * A command that may set the lease (an extension, a renewal) is about to be sent;
		 * followed by {@link #replied} or {@link #failed}.
		 */
		default void sending(LockHold hold) {
		}

		/**
		 * The reply of such a command.
		 * @param leaseMillis the lease it set, or a negative value if it set none
		 */
		default void replied(LockHold hold, long leaseMillis) {
		}

		/**
		 * Such a command got no reply: Redis may still run it.
		 */
		default void failed(LockHold hold) {
		}

		/**
		 * The release was answered, or failed.
		 * @param result the holds of the owner left, -1 if the lock was gone, -2 if
		 * someone else held it, or {@link #UNKNOWN} if no reply came
		 */
		default void released(LockHold hold, long result) {
		}

		/**
		 * The release failed without a reply.
		 */
		default void releaseFailed(LockHold hold, LockAccessException failure) {
		}

		/**
		 * The release ended the hold normally, after it lasted the given time.
		 */
		default void releasedAfter(LockHold hold, Duration heldFor) {
		}

		/**
		 * The hold is lost: its lease ended or someone else has the lock.
		 * @param goneFromRedis whether Redis said the hold is not there any more, rather
		 * than the renewals failing until its lease would have ended
		 */
		default void lost(LockHold hold, boolean goneFromRedis) {
		}

	}

}
