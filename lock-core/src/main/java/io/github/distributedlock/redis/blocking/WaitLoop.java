package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.NanoClock;
import io.github.distributedlock.redis.core.Waiting;
import io.github.distributedlock.redis.script.ScriptRunner;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition on the caller's thread: try the lock, and if it is taken, wait for a
 * wake-up and try again until the lock is ours or the wait time is over.
 * <p>
 * The steps, each the core's {@link Waiting} decision:
 * <ol>
 * <li>Try once. Most locks are free, and this is the only command sent.</li>
 * <li>Join the lock's local {@link WaitQueue} and wait for our turn: local waiters line
 * up in FIFO order, and only the first talks to Redis.</li>
 * <li>Make sure the release channel is subscribed before trying again, so no release is
 * missed.</li>
 * <li>Try, and if the lock is still taken wait for a signal for at most the holder's
 * remaining lease (a crashed holder is noticed when its lease ends, without polling) and
 * at most our remaining wait time.</li>
 * </ol>
 * The attempts of step 4 also file a {@linkplain HandOffRequest request}, which keeps
 * this waiter's place in the lock's line across processes: the last holder's release
 * reserves the lock for the oldest request and tells its waiter, whose next attempt takes
 * it. The message is only a hint: the lock is ours when, and only when, an attempt's
 * reply says so, and the lease is counted from before that attempt was sent. The request
 * is filed again at least every {@link HandOffRequest#REFILE_NANOS} and withdrawn when
 * the wait ends without the lock (which passes a reservation for it on). Fair locks wait
 * in {@link FairWait} instead.
 * <p>
 * This loop sends the attempts, parks the thread and keeps its place in the local line.
 * It returns what it won; it registers nothing. Not thread-safe: each acquisition has its
 * own loop.
 */
public final class WaitLoop {

	// How often a chained head polls once Redis refused BLPOP.
	private static final long REFUSED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final LockSpec spec;

	private final Acquisition acquisition;

	private final Waiting waiting;

	private final LockAttempts attempts;

	private final LockCommands commands;

	private final WaitQueues queues;

	// The waiter's local line once it joined one, whose sightings of the holder its
	// timeout reports if it made no attempt of its own; its place there.
	private @Nullable WaitQueue line;

	private WaitQueue.@Nullable Place place;

	// The offer it makes while it waits for its turn, which a release may take once its
	// place is first, before its thread runs.
	private @Nullable HandOverOffer queuedOffer;

	// The hand-off inside this JVM its head may offer itself to, or null; its owner's
	// digest once it did.
	private final @Nullable LocalHandOffs handOffs;

	private @Nullable String ownerDigest;

	// The connections chained heads wait on, or null; the one this head holds while it
	// chains.
	private final @Nullable HintConnections hints;

	private HintConnections.@Nullable Hint hint;

	// Whether an interrupt threw an attempt's reply away: the undoing attempt then waited
	// up to a command timeout for a Redis that may be stalled, and the withdrawal is not
	// waited for.
	private boolean unanswered;

	/**
	 * @param holds the holds of the template, which say whether the owner holds the lock
	 * through a local handle already
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 * @param handOffs the hand-off inside this JVM: its head, asleep, may be granted the
	 * lock by a release of this JVM, where the acquisition allows it; or {@code null}
	 * @param hints the connections its head may wait on in chained pairs, where the
	 * acquisition allows it; or {@code null}
	 */
	public WaitLoop(LockSpec spec, String owner, HoldRegistry holds, boolean handOff, @Nullable LocalHandOffs handOffs,
			@Nullable HintConnections hints, LockCommands commands, WaitQueues queues) {
		this.spec = spec;
		this.handOffs = handOffs;
		this.hints = hints;
		this.acquisition = new Acquisition(spec, owner, holds.holdsLocally(owner, spec.lockKey()), NanoClock.SYSTEM);
		this.waiting = new Waiting(this.acquisition, handOff);
		this.attempts = new LockAttempts(this.waiting, holds, commands);
		this.commands = commands;
		this.queues = queues;
	}

	/**
	 * Run the acquisition.
	 * @return what was won, or {@code null} if the wait time ran out (see
	 * {@link #timeout()})
	 */
	public @Nullable Grant run() {
		LockCommands.refuseIfInterrupted(this.spec.name());
		Grant grant = null;
		try {
			grant = attemptAndWait();
			return grant;
		}
		finally {
			if (grant == null && this.acquisition.heldBackByReaders()) {
				// Timed out, interrupted or failed: readers need not wait for this
				// writer.
				this.commands.dropIntentAsync(this.spec, this.acquisition.owner());
			}
		}
	}

	/**
	 * Build the exception for a wait that ran out.
	 */
	public LockTimeoutException timeout() {
		WaitQueue queue = this.line;
		return this.acquisition.timeout((queue != null) ? queue.line().holder() : null);
	}

	private @Nullable Grant attemptAndWait() {
		WaitQueue hot = this.queues.peek(this.spec.queueId());
		Waiting.Next next = this.waiting.begin(hot != null);
		if (hot != null && next instanceof Waiting.Send) {
			// A release is heard only once the subscription is complete: it is, so a
			// head of this line may sleep on the count read before this attempt.
			this.waiting.seenBeforeFirstAttempt(hot.line(), hot.signals());
		}
		Grant grant = null;
		boolean failed = true;
		try {
			grant = steps(next);
			failed = false;
			return grant;
		}
		catch (InterruptedException ex) {
			failed = false;
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(this.spec.name(), ex);
		}
		catch (LockInterruptedException | LockSelfDeadlockException ex) {
			failed = false;
			throw ex;
		}
		finally {
			leaveLine(grant != null, failed);
		}
	}

	private @Nullable Grant steps(Waiting.Next first) throws InterruptedException {
		Waiting.Next next = first;
		while (true) {
			if (next instanceof Waiting.Send send) {
				WaitQueue queue = this.line;
				if (queue != null) {
					// Shut down meanwhile: say so, rather than fail on a closed
					// connection.
					this.queues.checkOpen(queue, this.spec.name());
				}
				AcquireResult result;
				try {
					result = this.attempts.send(send.attempt());
				}
				catch (LockInterruptedException ex) {
					this.unanswered = true;
					this.attempts.undoAttempt();
					if (this.spec.kind().queuesInRedis()) {
						// The attempt (or its undoing) may have joined the fair queue,
						// and a place left there would be named next by a release.
						leaveFairQueue();
					}
					throw ex;
				}
				boolean outside = !this.waiting.isHead();
				next = this.waiting.replied(send.attempt(), result);
				if (outside && next == Waiting.Next.JOIN_LINE && this.spec.kind().queuesInRedis()) {
					return new FairWait(this.attempts, result.rank(), this.commands, this.queues).run();
				}
			}
			else if (next == Waiting.Next.JOIN_LINE) {
				next = joinLine();
			}
			else if (next instanceof Waiting.AwaitTurn turn) {
				next = awaitTurn(turn);
			}
			else if (next instanceof Waiting.Sleep sleep) {
				next = sleep(sleep);
			}
			else if (next instanceof Waiting.Chain chain) {
				next = chain(chain);
			}
			else if (next instanceof Waiting.Hold hold) {
				if (this.handOffs != null) {
					// Before it leaves the line: the next head may offer itself to it.
					this.handOffs.held(hold.grant());
				}
				return hold.grant();
			}
			else if (next instanceof Waiting.GiveUp giveUp) {
				if (giveUp.release() != null) {
					this.attempts.releaseQuietly(giveUp.release());
				}
				return null;
			}
			else if (next instanceof Waiting.Fail failure) {
				throw failure.error();
			}
			else {
				throw new IllegalStateException("Lock '" + this.spec.name() + "': nothing to do next");
			}
		}
	}

	/**
	 * Leave the fair queue after an interrupted attempt, without waiting for the reply:
	 * the undoing attempt already waited up to a command timeout for Redis, which may be
	 * stalled, and the leave goes behind it on a shared connection.
	 */
	private void leaveFairQueue() {
		try {
			this.commands.leaveQueueAsync(this.spec, this.acquisition.owner());
		}
		catch (RuntimeException ex) {
			// The place expires with the fair waiter timeout.
		}
	}

	private Waiting.Next joinLine() {
		WaitQueue queue = this.queues.join(this.spec);
		this.line = queue;
		this.queues.waiting(1);
		WaitQueue.Place joined = queue.join();
		this.place = joined;
		boolean first = queue.hasTurn(joined);
		if (!first) {
			this.queuedOffer = offer(queue, joined, "");
		}
		else {
			takeHint();
		}
		return this.waiting.joined(queue.line(), first, queue.subscribed().isDone(), first ? localHold(queue) : null);
	}

	private Waiting.Next awaitTurn(Waiting.AwaitTurn turn) throws InterruptedException {
		WaitQueue queue = queue();
		WaitQueue.Place waiting = place();
		long nanos = Math.max(turn.nanos(), this.acquisition.deadline().remainingNanos());
		boolean first = queue.awaitTurn(waiting, nanos);
		HandOverOffer offered = this.queuedOffer;
		if (offered != null) {
			this.queuedOffer = null;
			HandOverOffer.Settlement settled = queue.withdraw(waiting, offered);
			if (settled != null && settled.outcome() != HandOverOffer.Outcome.REFUSED
					&& (queue.isClosed() || this.queues.isClosed())) {
				// Shut down while the hand-over was in flight: a grant is released, as
				// an offered head's is, before the shutdown is reported.
				releaseUnwanted(settled);
				this.queues.checkOpen(queue, this.spec.name());
			}
			if (settled != null && settled.outcome() == HandOverOffer.Outcome.GRANTED) {
				// Taken while its place was first, which it still is.
				return this.waiting.handedOver(settled.token(), settled.sentNanos());
			}
			// Refused or without a reply: the hold ended, and as the head it attempts at
			// once (with its hold id, which finds a grant whose reply was lost).
			first |= settled != null;
		}
		if (first) {
			takeHint();
			return this.waiting.promoted(queue.subscribed().isDone(), localHold(queue));
		}
		this.queues.checkOpen(queue, this.spec.name());
		Waiting.Next next = this.waiting.turnTimedOut(turn.ticket());
		if (next instanceof Waiting.Peek peek) {
			next = peek(peek);
		}
		if (next instanceof Waiting.AwaitTurn) {
			this.queuedOffer = offer(queue, waiting, "");
		}
		return next;
	}

	/**
	 * Read which hold the lock is at, still in line, for a progress-aware wait that ran
	 * out behind a quiet head ({@link Waiting.Peek}); a reading that fails gives up.
	 */
	private Waiting.Next peek(Waiting.Peek peek) {
		long token;
		try {
			token = this.commands.peek(this.spec);
		}
		catch (LockAccessException ex) {
			// Shut down meanwhile: say so, rather than time out.
			this.queues.checkOpen(queue(), this.spec.name());
			return this.waiting.peekFailed(peek.ticket());
		}
		return this.waiting.peeked(peek.ticket(), token);
	}

	/**
	 * Return the hold of another owner in this template that the new head may offer
	 * itself to before its first attempt, with the line's signal count read before it was
	 * looked up: a release after that read wakes the head.
	 */
	private Waiting.@Nullable LocalHold localHold(WaitQueue queue) {
		LocalHandOffs local = this.handOffs;
		if (local == null) {
			return null;
		}
		long seen = queue.signals();
		return local.localHold(this.spec, this.acquisition.owner(), seen);
	}

	/**
	 * Sleep as the head: until the channel is subscribed, if it is not yet, or until a
	 * signal the core acts on, or until the sleep's time is over.
	 */
	private Waiting.Next sleep(Waiting.Sleep sleep) throws InterruptedException {
		WaitQueue queue = queue();
		this.queues.checkOpen(queue, this.spec.name());
		if (!queue.subscribed().isDone()) {
			queue.awaitSubscribed(sleep.nanos());
			return this.waiting.woken(Waiting.ANY_TICKET);
		}
		HandOffRequest request = this.acquisition.request();
		HandOverOffer offer = (request != null) ? offer(queue, place(), request.member()) : null;
		if (offer == null) {
			return sleepOn(queue, sleep);
		}
		Waiting.Next next;
		try {
			next = sleepOn(queue, sleep);
		}
		catch (InterruptedException | RuntimeException ex) {
			stopOffering(queue, place(), offer);
			throw ex;
		}
		HandOverOffer.Settlement settled = queue.withdraw(place(), offer);
		if (settled == null || settled.outcome() == HandOverOffer.Outcome.REFUSED) {
			return next;
		}
		if (settled.outcome() == HandOverOffer.Outcome.GRANTED) {
			if (next instanceof Waiting.Send) {
				// Woken to attempt, it found the grant instead.
				this.acquisition.unsent();
			}
			return this.waiting.handedOver(settled.token(), settled.sentNanos());
		}
		return (next instanceof Waiting.Send) ? next : this.waiting.handOverFailed();
	}

	/**
	 * Publish this waiter's offer to a release of this JVM, if it may be granted the lock
	 * that way (see {@link Acquisition#offerable()}), in a template that hands off inside
	 * the JVM: the head's as it sleeps, or a queued waiter's as it waits for its turn.
	 * @param request the member of its request in the lock's line, or {@code ""} for a
	 * waiter that has made none
	 */
	private @Nullable HandOverOffer offer(WaitQueue queue, WaitQueue.Place waiting, String request) {
		if (this.handOffs == null || !this.waiting.linesUp() || !this.acquisition.offerable()
				|| (request.isEmpty() && this.acquisition.holdsIt())) {
			return null;
		}
		String digest = this.ownerDigest;
		if (digest == null) {
			digest = LockOwners.digest(this.acquisition.owner());
			this.ownerDigest = digest;
		}
		HandOverOffer offer = new HandOverOffer(this.acquisition.owner(), digest, this.acquisition.hold(),
				this.spec.leaseMillis(), request);
		queue.offer(waiting, offer);
		return offer;
	}

	/**
	 * Withdraw the offer of a head that stops (interrupted, shut down): wait for the
	 * settlement if a release took it, and release a grant it no longer wants, as a late
	 * one. After a hand-over without a reply, one attempt with the same hold id finds the
	 * grant if the hand-over ran.
	 */
	private void stopOffering(WaitQueue queue, WaitQueue.Place waiting, HandOverOffer offer) {
		HandOverOffer.Settlement settled = queue.withdraw(waiting, offer);
		if (settled == null || settled.outcome() == HandOverOffer.Outcome.REFUSED) {
			return;
		}
		releaseUnwanted(settled);
	}

	/**
	 * Release a grant (or, after a hand-over without a reply, whatever one attempt with
	 * the same hold id finds) that this waiter no longer wants.
	 */
	private void releaseUnwanted(HandOverOffer.Settlement settled) {
		if (settled.outcome() != HandOverOffer.Outcome.GRANTED) {
			this.attempts.undoAttempt();
			return;
		}
		try {
			Acquisition.Attempt attempt = this.acquisition.handedOver(settled.sentNanos());
			this.attempts.releaseQuietly(attempt, new AcquireResult(1, settled.token(), -1, -1));
		}
		catch (RuntimeException ex) {
			// The unwanted hold ends with its lease.
		}
	}

	private Waiting.Next sleepOn(WaitQueue queue, Waiting.Sleep sleep) throws InterruptedException {
		long until = System.nanoTime() + sleep.nanos();
		while (true) {
			long left = until - System.nanoTime();
			if (left <= 0) {
				return this.waiting.woken(sleep.ticket());
			}
			long seen = this.acquisition.seenSignals();
			boolean signalled = this.waiting.linesUp() ? queue.awaitSignalAsHead(seen, left)
					: queue.awaitSignal(seen, left);
			this.queues.checkOpen(queue, this.spec.name());
			if (!signalled) {
				return this.waiting.woken(sleep.ticket());
			}
			Waiting.Next next = this.waiting.signalled();
			if (next != Waiting.Next.NONE) {
				return next;
			}
		}
	}

	/**
	 * Take a hint connection as the acquisition becomes the head, if it may wait in
	 * chained pairs, the command timeout is long enough for a pair
	 * ({@link Waiting.Chain#MIN_COMMAND_TIMEOUT_NANOS}) and one is free: its request is
	 * then a chained one.
	 */
	private void takeHint() {
		HintConnections connections = this.hints;
		if (connections == null || this.hint != null || !this.waiting.chainable()
				|| commandTimeoutNanos() < Waiting.Chain.MIN_COMMAND_TIMEOUT_NANOS) {
			return;
		}
		HintConnections.Hint taken = connections.take();
		if (taken != null) {
			this.hint = taken;
			this.waiting.chain();
		}
	}

	/**
	 * Write the chained pair ({@code BLPOP} of the request's hint key, then the attempt)
	 * and wait for the attempt's reply, poking the hint when a message or a timer calls
	 * for an attempt meanwhile: nothing else is sent for this acquisition while the pair
	 * is out. See {@code docs/design/waiting-and-hand-off.md}, "The chained hint".
	 */
	private Waiting.Next chain(Waiting.Chain chain) throws InterruptedException {
		WaitQueue queue = queue();
		this.queues.checkOpen(queue, this.spec.name());
		HintConnections.Hint connection = this.hint;
		HandOffRequest request = this.acquisition.request();
		if (connection == null || request == null) {
			throw new IllegalStateException("Lock '" + this.spec.name() + "': chained without a connection");
		}
		long timeoutNanos = commandTimeoutNanos();
		// Lettuce times a command out itself from when it is written (its TimeoutOptions,
		// on by default), the attempt behind the BLPOP too: the BLPOP ends well before.
		long blockNanos = chain.blpopNanos(timeoutNanos);
		Acquisition.Attempt attempt = chain.attempt();
		HintConnections connections = this.hints;
		if (connections != null && connections.isRefused()) {
			// Redis refuses BLPOP: a chained request's reservation may be pushed and not
			// published, so the head polls, a tenth of a second at most between attempts.
			queue.awaitSignalAsHead(this.acquisition.seenSignals(), Math.min(chain.blockNanos(), REFUSED_POLL_NANOS));
			return new Waiting.Send(attempt, null);
		}
		CompletableFuture<AcquireResult> reply = this.commands.chain(connection, this.spec, this.acquisition.owner(),
				attempt, Math.max(1, (blockNanos + 999_999) / 1_000_000));
		reply.whenComplete((result, failure) -> queue.wake());
		long replyBy = attempt.sentNanos() + blockNanos + timeoutNanos;
		// The pair's own timer: when the wait is over, the head pokes its hint
		// rather than wait for Redis to time the BLPOP out (Waiting.Chain).
		long pokeIn = chain.pokeNanos(timeoutNanos);
		boolean timed = pokeIn >= 0;
		long pokeAt = attempt.sentNanos() + pokeIn;
		long pokeTicket = chain.ticket();
		while (!reply.isDone()) {
			long now = System.nanoTime();
			if (now - replyBy >= 0) {
				// No reply: closed, so that an attempt still queued behind a blocked
				// BLPOP never runs (one a stalled Redis runs first is a timed-out
				// attempt's).
				dropHint();
				this.unanswered = true;
				throw new LockAccessException(this.spec.name(), "Redis did not answer a chained attempt within "
						+ TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms after its BLPOP", null);
			}
			long until = (timed && pokeAt - replyBy < 0) ? pokeAt : replyBy;
			boolean signalled;
			try {
				signalled = queue.awaitSignalAsHead(this.acquisition.seenSignals(), until - now, reply);
			}
			catch (InterruptedException ex) {
				stopChain(request, reply, attempt);
				throw ex;
			}
			if (queue.isClosed() || this.queues.isClosed()) {
				stopChain(request, reply, attempt);
				this.queues.checkOpen(queue, this.spec.name());
			}
			if (reply.isDone()) {
				break;
			}
			Waiting.Next next = Waiting.Next.NONE;
			if (timed && System.nanoTime() - pokeAt >= 0) {
				timed = false;
				next = this.waiting.woken(pokeTicket);
			}
			else if (signalled) {
				next = this.waiting.signalled();
			}
			if (next instanceof Waiting.Poke poke) {
				if (poke.nanos() <= 0) {
					poke(request);
				}
				else {
					timed = true;
					pokeAt = System.nanoTime() + poke.nanos();
					pokeTicket = poke.ticket();
				}
			}
		}
		AcquireResult result;
		try {
			result = reply.join();
		}
		catch (CompletionException | CancellationException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (ScriptRunner.isNoScript(cause)) {
				// The attempt did not run: sent as any attempt is, which loads the
				// script.
				return new Waiting.Send(attempt, null);
			}
			dropHint();
			throw new LockAccessException(this.spec.name(), "Redis failed during a chained attempt: " + cause, cause);
		}
		return this.waiting.replied(attempt, result);
	}

	/**
	 * Stop a chained head whose pair is out (interrupted, shut down): poke its hint, so
	 * that Redis runs the attempt now, wait for its reply through interrupts for at most
	 * a command timeout, and release what it won; without a reply, close the connection,
	 * so that an attempt still queued behind a blocked {@code BLPOP} never runs.
	 */
	private void stopChain(HandOffRequest request, CompletableFuture<AcquireResult> reply,
			Acquisition.Attempt attempt) {
		this.unanswered = true;
		poke(request);
		AcquireResult result = null;
		boolean interrupted = false;
		long until = System.nanoTime() + commandTimeoutNanos();
		while (result == null) {
			try {
				result = reply.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			catch (ExecutionException | TimeoutException | CancellationException ex) {
				break;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		if (result == null) {
			dropHint();
			return;
		}
		this.attempts.releaseQuietly(attempt, result);
	}

	/**
	 * Push this head's own hint, which makes Redis run the pair's attempt now.
	 */
	private void poke(HandOffRequest request) {
		CompletableFuture<Long> poked = this.commands.poke(this.spec, request);
		HintConnections connections = this.hints;
		if (connections != null) {
			poked.whenComplete((pushed, failure) -> {
				if (failure != null) {
					connections.pokeFailed(failure);
				}
			});
		}
	}

	private long commandTimeoutNanos() {
		Duration timeout = this.commands.commandTimeout();
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), (timeout != null) ? timeout.toNanos() : 0);
	}

	/**
	 * Close the hint connection this head holds, which may have a pair out.
	 */
	private void dropHint() {
		HintConnections.Hint held = this.hint;
		HintConnections connections = this.hints;
		this.hint = null;
		if (held != null && connections != null) {
			connections.drop(held);
		}
	}

	/**
	 * Give back the hint connection this head holds when its wait ends: closed if its
	 * pair may still be out.
	 */
	private void giveBackHint() {
		HintConnections.Hint held = this.hint;
		HintConnections connections = this.hints;
		if (held == null || connections == null) {
			return;
		}
		if (this.waiting.isChained()) {
			dropHint();
			return;
		}
		this.hint = null;
		connections.give(held);
	}

	/**
	 * Leave the local line, withdrawing the request if the wait ended without the lock
	 * (which passes on a reservation for it, and never touches a hold). After a Redis
	 * failure, or after an interrupted attempt (whose undoing waited for Redis already),
	 * the request is withdrawn without waiting for the reply, so that a failing Redis is
	 * not waited for twice (and a request left behind would cost the others a claim).
	 */
	private void leaveLine(boolean won, boolean failed) {
		WaitQueue queue = this.line;
		WaitQueue.Place waiting = this.place;
		if (queue == null || waiting == null) {
			return;
		}
		try {
			HandOverOffer offered = this.queuedOffer;
			if (offered != null) {
				// Stopped while waiting for its turn: a grant it no longer wants is
				// released.
				this.queuedOffer = null;
				stopOffering(queue, waiting, offered);
			}
			giveBackHint();
			Acquisition.Ending ending = this.waiting.end(won);
			withdraw(ending.withdraw(), (failed || this.unanswered) && !queue.isClosed());
		}
		finally {
			queue.leave(waiting);
			this.queues.waiting(-1);
			this.queues.leave(queue);
		}
	}

	private void withdraw(@Nullable HandOffRequest request, boolean failed) {
		if (request == null) {
			return;
		}
		if (failed) {
			try {
				this.commands.withdrawAsync(this.spec, request);
			}
			catch (RuntimeException ex) {
				// A reservation for it lapses after its claim, and the request with the
				// line.
			}
			return;
		}
		try {
			// Sent even on an interrupted thread (LockCommands).
			this.commands.withdraw(this.spec, request);
		}
		catch (RuntimeException ex) {
			// A reservation for it lapses after its claim, and the request with the line.
		}
	}

	private WaitQueue.Place place() {
		WaitQueue.Place waiting = this.place;
		if (waiting == null) {
			throw new IllegalStateException("Not in line");
		}
		return waiting;
	}

	private WaitQueue queue() {
		WaitQueue queue = this.line;
		if (queue == null) {
			throw new IllegalStateException("Not in line");
		}
		return queue;
	}

}
