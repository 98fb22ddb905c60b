package io.github.distributedlock.redis.driver;

import java.util.function.Supplier;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitEnding;
import io.github.distributedlock.redis.core.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a lock that is not fair, driven by replies, messages and timers,
 * with no thread parked. The core's {@link Waiting} decides each step; this class sends,
 * schedules, and keeps its place in the lock's {@link LocalLine}. Only the line's head
 * talks to Redis, and its attempts carry a {@link HandOffRequest}: its place in the
 * lock's line in Redis, shared by every process and template. Only an attempt's reply
 * grants; a message only makes the head try again sooner. The head sleeps at most until
 * the holder's last reported lease, its wait time or half its request's claim ends, so
 * that a reservation whose message was lost is still taken in time: see
 * docs/design/driver.md.
 * <p>
 * A cancel while waiting withdraws the request; the rest is {@link AcquisitionRun}'s.
 */
public final class SingleAcquisition extends AcquisitionRun<Grant> {

	private final LockSpec spec;

	private final Waiting waiting;

	private final boolean handOff;

	// The caller's own owner, which a cohort it opens names as its holder.
	private final String caller;

	// Whether it may open a cohort or take a pass: guarded by the state lock.
	private boolean cohorts = true;

	// The pin of the cohort its attempts may open (docs/design/cohorting.md, rule 1),
	// settled once: by the grant that opens it, or at the end. Guarded by the state lock.
	private Cohorts.@Nullable Opening opening;

	/**
	 * @param holdsIt whether the owner may hold the lock already: then finding it ours is
	 * a re-entry rather than a hold left by a lost reply
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 */
	public SingleAcquisition(LockSpec spec, String owner, boolean holdsIt, boolean handOff, DriverCommands commands,
			LocalLines lines, Completion<Grant> completion) {
		super(spec.name(), commands, lines, completion, commands::releaseUnused);
		this.spec = spec;
		this.handOff = handOff;
		this.caller = owner;
		this.waiting = new Waiting(new Acquisition(spec, owner, holdsIt, commands.port(), commands.port().ids()),
				handOff);
	}

	/**
	 * Keep this acquisition out of cohorts: it opens none and takes no pass, as a lock of
	 * a multi-lock (docs/design/cohorting.md). Called before {@link #start}.
	 */
	public synchronized void keepOutOfCohorts() {
		this.cohorts = false;
	}

	@Override
	public String hold() {
		return this.waiting.acquisition().hold();
	}

	/**
	 * Return the hand-off request this acquisition filed last, if any.
	 */
	public synchronized @Nullable HandOffRequest request() {
		return this.waiting.acquisition().request();
	}

	@Override
	void begin() {
		LocalLine hot = this.lines.hot(this.spec);
		on(() -> this.waiting.begin(hot != null));
	}

	/**
	 * Take an event to the core, if the acquisition still runs, and do what it answers.
	 */
	private void on(Supplier<Waiting.Next> event) {
		Waiting.Next next;
		synchronized (this) {
			if (!running()) {
				return;
			}
			next = event.get();
			schedule(next);
		}
		act(next);
	}

	/**
	 * Do, with the state lock, the part of the next step that must not be raced.
	 */
	private void schedule(Waiting.Next next) {
		if (next instanceof Waiting.Send) {
			cancelSleep();
			sending();
		}
		else if (next instanceof Waiting.Sleep sleep) {
			cancelSleep();
			sleep(() -> on(() -> this.waiting.woken(sleep.ticket())), sleep.nanos());
		}
		else if (next instanceof Waiting.AwaitTurn turn) {
			cancelSleep();
			sleep(() -> on(() -> this.waiting.turnTimedOut(turn.ticket())), turn.nanos());
		}
	}

	/**
	 * Do the rest of the next step, without the state lock.
	 */
	private void act(Waiting.Next next) {
		if (next instanceof Waiting.Send send && this.lines.isClosed()) {
			// The template closed, and its close may not have failed this run yet: no
			// attempt goes out after the close.
			if (send.late() != null) {
				release(send.late());
			}
			closed();
		}
		else if (next instanceof Waiting.Send send) {
			Acquisition.Attempt attempt = send.attempt();
			this.commands.acquire(this.spec, attempt, (result) -> replied(attempt, result), this::failed);
		}
		else if (next instanceof Waiting.Hold hold) {
			succeed(hold.grant());
		}
		else if (next instanceof Waiting.GiveUp giveUp) {
			if (giveUp.release() != null) {
				// Granted too late and no attempt follows: it may still be in Redis.
				release(giveUp.release());
			}
			fail(timeout());
		}
		else if (next instanceof Waiting.Fail failure) {
			fail(failure.error());
		}
		else if (next == Waiting.Next.JOIN_LINE) {
			joinLine();
		}
	}

	private void replied(Acquisition.Attempt sent, AcquireResult result) {
		Waiting.Next next;
		boolean running;
		Runnable opened = null;
		synchronized (this) {
			running = received();
			next = this.waiting.replied(sent, result);
			Cohorts.Opening pinned = this.opening;
			if (running && next instanceof Waiting.Hold hold && pinned != null) {
				// Won under the state lock: a cancel cannot leave the cohort to nobody.
				LocalLine joined = this.line;
				opened = wonNow((joined != null)
						? this.lines.cohorts().open(pinned, hold.grant(), result.block(), joined, this.caller)
						: hold.grant());
			}
			else if (running) {
				schedule(next);
			}
		}
		if (!running) {
			// Cancelled or closed in flight: nobody will use a grant, in time or late.
			abandon(grantIn(next));
			return;
		}
		if (opened != null) {
			opened.run();
			return;
		}
		act(next);
	}

	private static @Nullable Grant grantIn(Waiting.Next next) {
		if (next instanceof Waiting.Hold hold) {
			return hold.grant();
		}
		if (next instanceof Waiting.Send send) {
			return send.late();
		}
		return (next instanceof Waiting.GiveUp giveUp) ? giveUp.release() : null;
	}

	private LockTimeoutException timeout() {
		LocalLine joined = this.line;
		return this.waiting.acquisition().timeout((joined != null) ? joined.line().holder() : null);
	}

	private void joinLine() {
		LocalLine joined = this.lines.join(this.spec);
		Waiting.Next next;
		synchronized (this) {
			if (!running()) {
				this.lines.leave(joined);
				return;
			}
			this.line = joined;
			// Asleep until the channel is subscribed, if it is the head (below).
			next = this.waiting.joined(joined.line(), joined.join(this));
			schedule(next);
			underCohort(joined);
		}
		if (joined.isClosed()) {
			// Closed before this waiter was in it, so the close told it nothing.
			closed();
			return;
		}
		act(next);
		whenSubscribed(joined);
	}

	/**
	 * Called by the line when this waiter becomes its head.
	 */
	void promoted() {
		LocalLine joined;
		synchronized (this) {
			if (!running()) {
				return;
			}
			joined = line();
			if (!joined.isClosed()) {
				schedule(this.waiting.promoted());
				underCohort(joined);
			}
		}
		if (joined.isClosed()) {
			// Fail now, whether or not the line's close reached this waiter.
			closed();
			return;
		}
		whenSubscribed(joined);
	}

	/**
	 * At the head, before its first attempt there: sleep under the cohort that holds the
	 * lock, if the line has one open and this head never sent its request (rule 5); else
	 * pin a cohort to open, if one may be (rule 1). Called with the state lock: the
	 * line's end signal, which clears the cohort first, then waits for it, so it cannot
	 * fall between the read and the sleep.
	 */
	private void underCohort(LocalLine joined) {
		if (!this.waiting.isHead() || !this.cohorts) {
			return;
		}
		Cohort holding = joined.cohort();
		if (holding != null) {
			schedule(this.waiting.underCohort(holding.number(), holding.leaseEnd().nanos()));
		}
		else {
			mayOpen(joined);
		}
	}

	/**
	 * Pin a cohort and carry its owner and block from the next attempt on, if this head
	 * has a waiter behind it and may open one (rule 1). Called with the state lock.
	 */
	private void mayOpen(LocalLine joined) {
		if (this.cohorts && this.opening == null) {
			this.opening = this.lines.cohorts().pinFor(this.spec, this.handOff, this.waiting.acquisition(), joined);
		}
	}

	/**
	 * Called by the line at the release of its cohort's last local hold: take the lock in
	 * memory if this head sleeps under that cohort and every check of the hand-over holds
	 * (rule 4). The grant completes when the returned hand-over runs.
	 * @return the hand-over, or {@code null} if this acquisition did not take it
	 */
	@Nullable Runnable passed(Cohort from, Grant releasing, long minimumHoldLeftMillis) {
		synchronized (this) {
			if (!running()) {
				return null;
			}
			Waiting.Next next = this.waiting.passed(from, releasing, minimumHoldLeftMillis);
			if (!(next instanceof Waiting.Hold hold)) {
				return null;
			}
			return wonNow(hold.grant());
		}
	}

	/**
	 * Called by the line when its cohort ended: a head asleep under it attempts now.
	 */
	void cohortEnded(long number) {
		on(() -> {
			LocalLine joined = this.line;
			if (joined != null && this.waiting.cohort() == number) {
				mayOpen(joined);
			}
			return this.waiting.cohortEnded(number);
		});
	}

	/**
	 * Wake the head once the line's channel is subscribed (at once, if it is).
	 */
	private void whenSubscribed(LocalLine joined) {
		boolean head;
		synchronized (this) {
			head = this.waiting.isHead();
		}
		if (head) {
			joined.whenSubscribed(() -> on(() -> this.waiting.woken(Waiting.ANY_TICKET)));
		}
	}

	/**
	 * Called by the line on every message while this waiter is its head.
	 */
	void signalled() {
		on(this.waiting::signalled);
	}

	private LocalLine line() {
		LocalLine current = this.line;
		if (current == null) {
			throw new IllegalStateException("Not in line");
		}
		return current;
	}

	@Override
	Runnable ended(boolean won, @Nullable LocalLine joined) {
		WaitEnding ending = this.waiting.end(won);
		// The owner its attempts carried, in whose name one may have set a writer intent.
		String owner = this.waiting.acquisition().owner();
		Cohorts.Opening pinned = this.opening;
		return () -> {
			if (pinned != null) {
				// Nothing if the grant opened it.
				this.lines.cohorts().unpin(pinned);
			}
			if (joined != null) {
				joined.leave(this);
				this.lines.leave(joined);
			}
			HandOffRequest filing = ending.forget();
			if (ending.withdraw() && filing != null) {
				this.commands.withdraw(this.spec, filing);
			}
			if (ending.dropIntent()) {
				// Readers need not wait for a writer that no longer waits.
				this.commands.dropIntent(this.spec, owner);
			}
		};
	}

}
