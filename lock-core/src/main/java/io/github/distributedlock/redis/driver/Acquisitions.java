package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * A template's acquisitions, written once for both templates. Each is one of the driver's
 * runs, whose end is told once what it sent settled ({@link SettledRun}), never past the
 * call's bound: its wait time plus one command timeout. What it won then passes the
 * replica check, if the template asks for one, and becomes handles registered in the
 * {@link HoldRegistry}, each renewed if its lock is. The template announces a handle when
 * it hands it to its caller, on that caller's thread. Thread-safe.
 *
 * @param <H> the template's handle of one hold
 */
public final class Acquisitions<H extends RegisteredHold> {

	private final DriverCommands commands;

	private final LocalLines lines;

	private final HoldRegistry registry;

	private final @Nullable ReplicaWait replicas;

	private final BooleanSupplier cluster;

	private final boolean handOff;

	private final long commandTimeoutNanos;

	/**
	 * @param commands the template's scripts, each run's on its own port
	 * @param lines the template's local lines, with its cohorts
	 * @param replicas the replica check every new hold passes, or {@code null} for none
	 * @param cluster whether Redis is a Cluster, where a multi-lock's keys may be in
	 * several hash slots
	 * @param handOff whether waiters line up for reservations, where the lock's kind does
	 * @param commandTimeoutNanos the client's command timeout, or a negative value if
	 * unknown
	 */
	public Acquisitions(DriverCommands commands, LocalLines lines, HoldRegistry registry,
			@Nullable ReplicaWait replicas, BooleanSupplier cluster, boolean handOff, long commandTimeoutNanos) {
		this.commands = commands;
		this.lines = lines;
		this.registry = registry;
		this.replicas = replicas;
		this.cluster = cluster;
		this.handOff = handOff;
		this.commandTimeoutNanos = commandTimeoutNanos;
	}

	public HoldRegistry registry() {
		return this.registry;
	}

	/**
	 * Return, unstarted, the acquisition of one lock. A re-entry of the caller that holds
	 * the lock under a cohort acquires as the cohort's owner ({@link CohortReentry}).
	 * @param start when the call began, on the port's clock
	 * @param port where the run's scripts go: the template's, or one run's own
	 * @param handles makes the template's handle of a grant
	 */
	public Call<?, H> one(LockSpec spec, String owner, long start, LockPort port, Function<Grant, H> handles,
			Completion<H> done) {
		Deadline call = callBound(port, spec.progressAware() ? -1 : spec.waitNanos(), start);
		return new Call<Grant, H>(spec.name(), this.commands.on(port), settleNanos(), call, waitEnd(spec, start),
				this.replicas != null, done, (commands, settled) -> acquisition(spec, owner, true, commands, settled),
				(grant) -> check(List.of(grant), call, null), (grant) -> this.registry.add(handles.apply(grant)),
				(grant) -> {
					// Released by the check.
				});
	}

	/**
	 * Return, unstarted, the acquisition of several exclusive locks as one hold, every
	 * one or none, in one global order (by key), which makes overlapping multi-locks
	 * deadlock-free. One script takes them all, unless on a Cluster their keys are in
	 * several hash slots: then one by one, in the same order
	 * ({@link InOrderAcquisition}), each held and renewed while the next is taken. None
	 * of its locks takes part in a cohort (docs/design/cohorting.md), but a re-entry of a
	 * cohort's holder goes under the cohort's owner.
	 * @param first the first request, whose wait time and reentrancy the multi-lock has
	 * @param requested every request, in the order asked, each multi-lockable
	 * @param start when the call began, on the port's clock
	 */
	public Call<?, List<H>> all(LockSpec first, List<LockSpec> requested, String owner, long start, LockPort port,
			Function<Grant, H> handles, Completion<List<H>> done) {
		List<LockSpec> specs = MultiAcquisition.inGlobalOrder(requested);
		// A wait that restarts when a lock changes hands has no fixed bound.
		boolean restarts = first.progressAware();
		Deadline call = callBound(port, restarts ? -1 : first.waitNanos(), start);
		if (MultiAcquisition.inOneScript(specs, this.cluster)) {
			MultiAcquisition acquisition = new MultiAcquisition(specs, owner, first.waitNanos(), first.reentrant(),
					this.handOff, port, port.ids());
			return new Call<List<Grant>, List<H>>(first.name(), this.commands.on(port), settleNanos(), call,
					waitEnd(first, start), this.replicas != null, done,
					(commands, settled) -> new AllLocksAcquisition(acquisition, commands, this.lines, settled),
					(grants) -> check(grants, call, null),
					(grants) -> grants.stream().map((grant) -> this.registry.add(handles.apply(grant))).toList(),
					(grants) -> {
						// Released by the check.
					});
		}
		long timeout = restarts ? -1 : this.commandTimeoutNanos;
		// The run bounds itself: it takes no lock after the bound, and releases those
		// taken.
		return new Call<List<H>, List<H>>(first.name(), this.commands.on(port), settleNanos(), call, Long.MAX_VALUE,
				this.replicas != null, done,
				(commands, settled) -> new InOrderAcquisition<>(specs, first.waitNanos(), start, timeout,
						commands.port(), inOrderSteps(owner, commands, handles), settled),
				// Renewed while the later locks were taken: each lease as its handle
				// counts it.
				(held) -> check(held.stream().map(RegisteredHold::grant).toList(), call,
						(grant) -> held.stream()
							.noneMatch((each) -> each.grant() == grant && each.hold().isLive(port.nanoTime()))),
				(held) -> held,
				// Forgotten as if never held (no listener hears of them): the check
				// releases them.
				(held) -> held.forEach(this.registry::forget));
	}

	/**
	 * Return the owner Redis records for a hold of the caller on the lock: a cohort's, if
	 * the caller holds the lock under one (docs/design/cohorting.md, rule 7), else its
	 * own.
	 */
	public String redisOwner(String lockKey, String caller) {
		Cohort holding = this.lines.cohorts().current(lockKey);
		return (holding != null && holding.isHeldBy(caller)) ? holding.owner() : caller;
	}

	/**
	 * Return the bound of a call that began at {@code start} with the given wait time:
	 * the wait time plus one command timeout; none if either is unbounded or unknown.
	 */
	private Deadline callBound(LockPort port, long waitNanos, long start) {
		long timeout = this.commandTimeoutNanos;
		return new Deadline(port, (waitNanos < 0 || timeout < 0) ? -1 : waitNanos + timeout, start);
	}

	/**
	 * Return when a request's wait time ends, on the clock {@code start} is read from;
	 * {@link Long#MAX_VALUE} for a wait with no fixed end.
	 */
	private static long waitEnd(LockSpec spec, long start) {
		return (spec.waitNanos() < 0 || spec.progressAware()) ? Long.MAX_VALUE : start + spec.waitNanos();
	}

	/**
	 * Return how long past its end a run may take to settle: one command timeout.
	 */
	private long settleNanos() {
		return (this.commandTimeoutNanos < 0) ? SettledRun.UNKNOWN_TIMEOUT_SETTLE_NANOS : this.commandTimeoutNanos;
	}

	/**
	 * @param cohorts whether it may open a cohort or take a pass: not for a lock of a
	 * multi-lock
	 */
	private Acquiring acquisition(LockSpec spec, String owner, boolean cohorts, DriverCommands commands,
			Completion<Grant> completion) {
		return AcquisitionRun.of(spec, owner, CohortReentry.start(this.lines, spec, owner),
				this.registry.holdsLocally(owner, spec.lockKey()), cohorts, this.handOff, commands, this.lines,
				completion);
	}

	/**
	 * Return the check of won holds, or {@code null} if the template asks for none.
	 * @param lapsed whether a hold's lease has ended as its handle counts it, or
	 * {@code null} for fresh grants
	 */
	private @Nullable CompletableFuture<List<Grant>> check(List<Grant> grants, Deadline call,
			@Nullable Predicate<Grant> lapsed) {
		ReplicaWait check = this.replicas;
		if (check == null) {
			return null;
		}
		return (lapsed != null) ? check.confirm(grants, call, lapsed) : check.confirm(grants, call);
	}

	/**
	 * Return the steps of a multi-lock whose locks are taken in order: each becomes a
	 * registered handle, renewed, as soon as it is taken; the listeners hear of them once
	 * all are taken and confirmed.
	 */
	private InOrderAcquisition.Steps<H> inOrderSteps(String owner, DriverCommands commands,
			Function<Grant, H> handles) {
		return new InOrderAcquisition.Steps<>() {

			@Override
			public Acquiring acquire(LockSpec spec, Completion<Grant> completion) {
				return acquisition(spec, owner, false, commands, completion);
			}

			@Override
			public H hold(Grant grant) {
				return Acquisitions.this.registry.add(handles.apply(grant));
			}

			/**
			 * Release through the call's port, so that the call's end waits for the reply
			 * (within its bound): a caller that goes on after a timeout finds the lock
			 * free rather than its own.
			 */
			@Override
			public void release(H held) {
				held.hold().releaseUnused(commands.port(), Completion.of((result) -> {
				}, (error) -> {
					// Its lease ends it.
				}));
			}

			@Override
			public boolean isLive(H held) {
				return held.hold().isLive(commands.port().nanoTime());
			}

		};
	}

	/**
	 * One acquisition as a template's caller sees it: the driver's run, then the replica
	 * check of what it won. Its completion hears once: of what it won, or why not; after
	 * a {@link #cancel} that stopped it, of the cancel's error, once what the run sent
	 * settled. A run that sends a script after its wait time (a grant that came too late
	 * to use, taken again) is cancelled at the call's bound if still going, and the call
	 * fails: every other script goes out before the wait time ends, and the command
	 * timeout bounds its reply.
	 *
	 * @param <W> what the driver's run wins
	 * @param <G> what the caller gets
	 */
	public static final class Call<W, G> {

		private final LockName name;

		private final Deadline call;

		private final long lateAt;

		private final boolean checks;

		private final SettledRun<W> settled;

		private final Acquiring run;

		private final Completion<G> done;

		private final Function<W, @Nullable CompletableFuture<List<Grant>>> check;

		private final Function<W, G> keep;

		private final Consumer<W> drop;

		// Guarded by this: whether a late script set the timer of the call's bound,
		// whether the run's end was told, and that timer while the run goes on; the
		// replica check under way, once the run won; whether a cancel stopped the check
		// before it started, whether the completion was told, and what a cancel tells it.
		private boolean bounding;

		private boolean runEnded;

		private LockPort.@Nullable Cancellable bound;

		private @Nullable CompletableFuture<List<Grant>> checking;

		private boolean cancelled;

		private boolean told;

		private @Nullable Throwable why;

		/**
		 * @param call the call's bound: its wait time plus one command timeout
		 * @param lateAt when the wait time ends, on the port's clock: a script the run
		 * sends from then on sets the timer of the call's bound; {@link Long#MAX_VALUE}
		 * for none (no bound, or a run that bounds itself)
		 * @param checks whether the replica check follows a win
		 */
		Call(LockName name, DriverCommands commands, long settleNanos, Deadline call, long lateAt, boolean checks,
				Completion<G> done, BiFunction<DriverCommands, Completion<W>, Acquiring> acquisition,
				Function<W, @Nullable CompletableFuture<List<Grant>>> check, Function<W, G> keep, Consumer<W> drop) {
			this.name = name;
			this.call = call;
			this.lateAt = (call.remainingNanos() == Long.MAX_VALUE) ? Long.MAX_VALUE : lateAt;
			this.checks = checks;
			this.done = done;
			this.check = check;
			this.keep = keep;
			this.drop = drop;
			long bound = call.remainingNanos();
			this.settled = new SettledRun<>(commands.port(), Completion.of(this::won, this::failed), settleNanos,
					(bound == Long.MAX_VALUE) ? -1 : Math.max(0, bound));
			this.run = acquisition.apply(
					commands.on((this.lateAt != Long.MAX_VALUE) ? new LateSends(this.settled) : this.settled),
					this.settled);
		}

		/**
		 * Take the first step.
		 */
		public void start() {
			this.run.start();
		}

		/**
		 * Stop acquiring: the run, or the replica check of what it won (under way, or yet
		 * to start), which then releases it.
		 * @param why what the completion hears once what the run sent settled, or
		 * {@code null} for nothing (a subscriber that left)
		 * @return whether it stopped; if not, it had ended, and its completion hears (or
		 * heard) of the end, a grant included
		 */
		public boolean cancel(@Nullable Throwable why) {
			if (this.run.cancel()) {
				stopBound();
				if (why != null) {
					this.settled.cancelled(why);
				}
				return true;
			}
			CompletableFuture<List<Grant>> check;
			synchronized (this) {
				if (!this.checks || this.told || this.cancelled) {
					return false;
				}
				this.why = why;
				check = this.checking;
				if (check == null) {
					// Won, its check yet to start: cancelled as it starts (won), or the
					// run's failure on its way is told as the cancel.
					this.cancelled = true;
					return true;
				}
			}
			return check.cancel(false);
		}

		/**
		 * Tell the end now if the run ended, without waiting for what it still has in
		 * flight: its caller stops waiting for that.
		 */
		public void settleNow() {
			this.settled.settleNow();
		}

		/**
		 * The call's bound came with the run still going: stop it; what it wins later is
		 * released.
		 */
		private void overBound() {
			if (this.run.cancel()) {
				this.settled.failed(new LockAccessException(this.name,
						"Redis answered too slowly to acquire it within "
								+ "the wait time plus one command timeout: gave up after "
								+ this.call.elapsed().toMillis() + " ms",
						null));
			}
		}

		private void stopBound() {
			LockPort.Cancellable timer;
			synchronized (this) {
				this.runEnded = true;
				timer = this.bound;
				this.bound = null;
			}
			if (timer != null) {
				timer.cancel();
			}
		}

		private void boundFromNow() {
			synchronized (this) {
				if (this.bounding || this.runEnded) {
					return;
				}
				this.bounding = true;
			}
			LockPort.Cancellable timer = this.settled.schedule(this::overBound,
					Math.max(0, this.call.remainingNanos()));
			boolean stale;
			synchronized (this) {
				stale = this.runEnded;
				if (!stale) {
					this.bound = timer;
				}
			}
			if (stale) {
				timer.cancel();
			}
		}

		private void won(W won) {
			stopBound();
			CompletableFuture<List<Grant>> check = this.check.apply(won);
			if (check == null) {
				granted(this.keep.apply(won));
				return;
			}
			boolean cancelNow;
			synchronized (this) {
				this.checking = check;
				cancelNow = this.cancelled;
			}
			check.whenComplete((confirmed, error) -> {
				if (error == null) {
					granted(this.keep.apply(won));
					return;
				}
				this.drop.accept(won);
				if (error instanceof CancellationException) {
					// Only a cancel of the call cancels the check.
					told(true, error);
				}
				else {
					told(false, unwrap(error));
				}
			});
			if (cancelNow) {
				check.cancel(false);
			}
		}

		private void granted(G won) {
			synchronized (this) {
				this.told = true;
			}
			this.done.granted(won);
		}

		/**
		 * The run failed: told as the cancel if one stopped the check it would have had.
		 */
		private void failed(Throwable error) {
			stopBound();
			told(false, error);
		}

		private void told(boolean cancel, Throwable error) {
			Throwable told;
			synchronized (this) {
				this.told = true;
				told = (cancel || this.cancelled) ? this.why : error;
			}
			if (told != null) {
				this.done.failed(told);
			}
		}

		/**
		 * The run's port: a script sent from the end of the wait time on, after the
		 * first, sets the timer of the call's bound, once. The first is sent as the call
		 * begins, its reply bounded by one command timeout.
		 */
		private final class LateSends extends ForwardingPort {

			private volatile boolean sentOne;

			LateSends(LockPort port) {
				super(port);
			}

			@Override
			public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
				if (!this.sentOne) {
					this.sentOne = true;
				}
				else if (nanoTime() - Call.this.lateAt >= 0) {
					boundFromNow();
				}
				delegate().run(name, operation, call, reply);
			}

		}

		private static Throwable unwrap(Throwable error) {
			return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
		}

	}

}
