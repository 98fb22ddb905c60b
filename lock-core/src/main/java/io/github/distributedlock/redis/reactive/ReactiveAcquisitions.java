package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.BiFunction;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.Acquiring;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.AllLocksAcquisition;
import io.github.distributedlock.redis.driver.CohortReentry;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.InOrderAcquisition;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.ReplicaWait;
import io.github.distributedlock.redis.driver.SettledRun;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * The reactive template's acquisitions, each one of the driver's run as a {@code Mono}
 * that its cancellation cancels. Thread-safe.
 */
public final class ReactiveAcquisitions {

	private final DriverCommands commands;

	private final LocalLines lines;

	private final HoldRegistry holds;

	private final ReactiveLockCommands lockCommands;

	private final BooleanSupplier cluster;

	private final boolean handOff;

	private final long commandTimeoutNanos;

	private final @Nullable ReplicaWait replicas;

	/**
	 * @param commandTimeoutNanos the connection's command timeout, or a negative value if
	 * unknown
	 * @param replicas the replica check every new hold passes, or {@code null} for none
	 */
	public ReactiveAcquisitions(DriverCommands commands, LocalLines lines, HoldRegistry holds,
			ReactiveLockCommands lockCommands, BooleanSupplier cluster, boolean handOff, long commandTimeoutNanos,
			@Nullable ReplicaWait replicas) {
		this.replicas = replicas;
		this.commands = commands;
		this.lines = lines;
		this.holds = holds;
		this.lockCommands = lockCommands;
		this.cluster = cluster;
		this.handOff = handOff;
		this.commandTimeoutNanos = commandTimeoutNanos;
	}

	/**
	 * Take one lock when subscribed to.
	 * @return its handle, or a {@link LockTimeoutException} when the wait time ran out
	 */
	public Mono<ReactiveLockHandle> acquire(LockSpec spec, String owner) {
		return Mono.defer(() -> {
			// A wait that restarts when the lock changes hands has no fixed bound.
			Deadline call = callBound(spec.progressAware() ? -1 : spec.waitNanos(), System.nanoTime());
			return this.<Grant>run(call, (commands, done) -> acquisition(spec, owner, true, commands, done))
				// A grant that reached a cancelled subscriber: nobody will release it.
				.doOnError(LockTimeoutException.class, this::notAcquired)
				.flatMap((grant) -> confirmed(grant, call))
				.map(this::handle)
				// What reached a cancelled subscriber: a grant, or one the replica check
				// confirmed (in a list). Nobody will release it.
				.doOnDiscard(Object.class, this::discardedWon);
		});
	}

	/**
	 * Take every lock, or none, when subscribed to.
	 * @param first the first request, whose wait time and reentrancy the multi-lock has
	 * @param requested every request, in the order asked, each multi-lockable
	 * @param start when the acquisition began, in {@link System#nanoTime()}
	 * @return their handle, or a {@link LockTimeoutException} when the wait time ran out
	 */
	public Mono<ReactiveLockHandle> acquireAll(LockSpec first, List<LockSpec> requested, String owner, long start) {
		List<LockSpec> specs = MultiAcquisition.inGlobalOrder(requested);
		Deadline call = callBound(first.progressAware() ? -1 : first.waitNanos(), start);
		MultiAcquisition acquisition = new MultiAcquisition(specs, owner, first.waitNanos(), first.reentrant(),
				this.handOff, this.commands.port(), this.commands.port().ids());
		Mono<List<ReactiveRedisLockHandle>> holds;
		if (MultiAcquisition.inOneScript(specs, this.cluster)) {
			holds = this
				.<List<Grant>>run(call,
						(commands, done) -> new AllLocksAcquisition(acquisition, commands, this.lines, done))
				.flatMap((won) -> confirmedAll(won, call))
				.map((won) -> won.stream().map(this::handle).toList());
		}
		else {
			// A wait that restarts on progress has no fixed bound.
			long timeout = first.progressAware() ? -1 : this.commandTimeoutNanos;
			holds = this
				.<List<ReactiveRedisLockHandle>>run(call,
						(commands, done) -> new InOrderAcquisition<>(specs, first.waitNanos(), start, timeout,
								commands.port(), inOrderSteps(owner, commands), done))
				.flatMap((won) -> confirmedHandles(won, call))
				.doOnNext((won) -> won.forEach(this.holds::announce));
		}
		return holds.doOnDiscard(Object.class, this::discarded)
			.doOnError(LockTimeoutException.class, this::notAcquired)
			.map((won) -> new ReactiveMultiLockHandle(won, Duration.ofNanos(System.nanoTime() - start)));
	}

	/**
	 * Return the bound of a call that began at {@code start} with the given wait time:
	 * the wait time plus one command timeout; none if either is unbounded or unknown.
	 */
	private Deadline callBound(long waitNanos, long start) {
		long timeout = this.commandTimeoutNanos;
		return new Deadline((waitNanos < 0 || timeout < 0) ? -1 : waitNanos + timeout, start);
	}

	private Mono<Grant> confirmed(Grant grant, Deadline call) {
		// Mapped, not ignored: an ignored list would reach the discard hook.
		return confirmedAll(List.of(grant), call).map((confirmed) -> grant);
	}

	/**
	 * Wait until enough replicas have won holds, all or none, if the template asks for
	 * replica acknowledgements; the check ends at the call's bound, and releases what it
	 * refused, what it confirmed after that and what a cancel left ({@link ReplicaWait}).
	 */
	private Mono<List<Grant>> confirmedAll(List<Grant> grants, Deadline call) {
		ReplicaWait check = this.replicas;
		if (check == null) {
			return Mono.just(grants);
		}
		// A cancel cancels the check's future, which then releases the holds; holds it
		// confirmed that a cancel drops on their way are discarded.
		return Mono.defer(() -> Mono.fromFuture(check.confirm(grants, call)));
	}

	/**
	 * Confirm the locks of a multi-lock taken in order, all or none; the handles of a
	 * refused one are dropped.
	 */
	private Mono<List<ReactiveRedisLockHandle>> confirmedHandles(List<ReactiveRedisLockHandle> handles, Deadline call) {
		if (this.replicas == null) {
			return Mono.just(handles);
		}
		// Renewed while the later locks were taken: each lease as its handle counts it.
		// Mapped, not ignored: an ignored list of grants would reach the discard hook,
		// which releases them.
		List<Grant> grants = handles.stream().map(ReactiveRedisLockHandle::grant).toList();
		ReplicaWait check = this.replicas;
		return Mono
			.defer(() -> Mono.fromFuture(check.confirm(grants, call,
					(grant) -> !handles.get(grants.indexOf(grant)).hold().isLive(System.nanoTime()))))
			.doOnError((ex) -> handles.forEach(ReactiveAcquisitions::releaseDropped))
			.doOnCancel(() -> handles.forEach(ReactiveAcquisitions::releaseDropped))
			.map((confirmed) -> handles);
	}

	/**
	 * Release a grant nobody will use. A cohort's goes through its hold, as a handle's
	 * release would: it passes the lock on, or ends the cohort, so that no head stays
	 * asleep under a cohort that nobody holds (docs/design/cohorting.md, rule 4).
	 */
	private void releaseUnused(Grant grant) {
		if (grant.cohort() == null) {
			this.commands.releaseUnused(grant);
			return;
		}
		releaseDropped(this.holds
			.add(new ReactiveRedisLockHandle(this.holds, grant, this.commands.port(), this.lockCommands)));
	}

	/**
	 * Register a won hold as a handle, renewed if its lock is, and tell the listeners.
	 */
	private ReactiveRedisLockHandle handle(Grant grant) {
		ReactiveRedisLockHandle handle = taken(grant);
		this.holds.announce(handle);
		return handle;
	}

	/**
	 * Register a won hold as a handle, renewed if its lock is; the listeners hear of it
	 * once it is {@linkplain HoldRegistry#announce announced}.
	 */
	private ReactiveRedisLockHandle taken(Grant grant) {
		return this.holds.add(new ReactiveRedisLockHandle(this.holds, grant, this.commands.port(), this.lockCommands));
	}

	private void notAcquired(LockTimeoutException timeout) {
		this.holds.notAcquired(timeout.getLockName(), timeout.getWaited());
	}

	/**
	 * @param cohorts whether it may open a cohort or take a pass: not for a lock of a
	 * multi-lock
	 */
	private Acquiring acquisition(LockSpec spec, String owner, boolean cohorts, DriverCommands commands,
			Completion<Grant> completion) {
		// A subscription's own owner never holds the lock, so never under a cohort.
		return AcquisitionRun.of(spec, owner, CohortReentry.start(this.lines, spec, owner),
				this.holds.holdsLocally(owner, spec.lockKey()), cohorts, this.handOff, commands, this.lines,
				completion);
	}

	/**
	 * Return one of the driver's runs as a {@code Mono} that its cancellation cancels,
	 * which ends once the run settled ({@link SettledRun}).
	 * <p>
	 * What the run won goes to the subscriber or, once, to the discard hooks, which
	 * release it. Reactor's sink, while it is being cancelled, drops a value with
	 * neither; so the sink carries the value in a {@link Won} box that only one of the
	 * subscriber, the cancel or a win after the cancel may open.
	 * @param call the call's bound
	 */
	private <G> Mono<G> run(Deadline call, BiFunction<DriverCommands, Completion<G>, ? extends Acquiring> acquisition) {
		return Mono.<Won<G>>create((sink) -> {
			AtomicReference<@Nullable Won<G>> sent = new AtomicReference<>();
			AtomicBoolean cancelled = new AtomicBoolean();
			long bound = call.remainingNanos();
			Completion<G> told = Completion.of((won) -> {
				Won<G> box = new Won<>(won);
				sent.set(box);
				sink.success(box);
				if (cancelled.get()) {
					box.discard(sink.currentContext());
				}
			}, sink::error);
			SettledRun<G> settled = new SettledRun<>(this.commands.port(), told,
					(this.commandTimeoutNanos < 0) ? SettledRun.UNKNOWN_TIMEOUT_SETTLE_NANOS : this.commandTimeoutNanos,
					(bound == Long.MAX_VALUE) ? -1 : Math.max(0, bound));
			Acquiring run = acquisition.apply(this.commands.on(settled), settled);
			sink.onCancel(() -> {
				cancelled.set(true);
				run.cancel();
				Won<G> box = sent.get();
				if (box != null) {
					box.discard(sink.currentContext());
				}
			});
			run.start();
		}).handle((box, next) -> {
			if (box.open()) {
				next.next(box.value);
			}
		});
	}

	/**
	 * What a run won, on its way to the subscriber: whoever opens it first has it.
	 */
	private static final class Won<G> {

		private final AtomicBoolean opened = new AtomicBoolean();

		private final G value;

		Won(G value) {
			this.value = value;
		}

		boolean open() {
			return this.opened.compareAndSet(false, true);
		}

		/**
		 * Hand the value to the discard hooks, unless someone opened it already.
		 */
		void discard(Context context) {
			if (open()) {
				Operators.onDiscard(this.value, context);
			}
		}

	}

	/**
	 * Return the steps of a multi-lock's locks taken in order: each becomes a renewed
	 * handle as soon as it is taken; a failure releases them.
	 */
	private InOrderAcquisition.Steps<ReactiveRedisLockHandle> inOrderSteps(String owner, DriverCommands commands) {
		return new InOrderAcquisition.Steps<>() {

			@Override
			public Acquiring acquire(LockSpec spec, Completion<Grant> completion) {
				return acquisition(spec, owner, false, commands, completion);
			}

			@Override
			public ReactiveRedisLockHandle hold(Grant grant) {
				// Announced once every lock is taken and confirmed, as the blocking
				// template does.
				return taken(grant);
			}

			@Override
			public void release(ReactiveRedisLockHandle held) {
				held.releaseUnused();
			}

			@Override
			public boolean isLive(ReactiveRedisLockHandle held) {
				return held.hold().isLive(commands.port().nanoTime());
			}

		};
	}

	/**
	 * Release what a single lock's acquisition won and a cancelled subscriber never got:
	 * a grant (a cohort's through its hold), or the grants a replica check confirmed.
	 */
	private void discardedWon(Object won) {
		if (won instanceof Grant grant) {
			releaseUnused(grant);
		}
		else if (won instanceof List<?> list) {
			list.forEach(this::discardedWon);
		}
		else {
			discarded(won);
		}
	}

	/**
	 * Release what a failed or cancelled multi-lock won (grants, handles, lists of them).
	 */
	private void discarded(Object won) {
		if (won instanceof Grant grant) {
			this.commands.releaseUnused(grant);
		}
		else if (won instanceof ReactiveLockHandle handle) {
			releaseDropped(handle);
		}
		else if (won instanceof List<?> list) {
			list.forEach(this::discarded);
		}
	}

	/**
	 * Release a hold that an operator (such as {@code then}) dropped on its way to a
	 * subscriber that cancelled, which the grant's own discard hook no longer reaches.
	 * The subscriber never had it, so no lock is kept for its minimum hold, as for a
	 * grant nobody uses.
	 */
	public static void releaseDropped(ReactiveLockHandle handle) {
		if (handle instanceof ReactiveRedisLockHandle held) {
			held.releaseUnused();
		}
		else if (handle instanceof ReactiveMultiLockHandle all) {
			all.releaseUnused();
		}
		else {
			handle.release().subscribe(null, (ex) -> {
				// Nobody waits for this release: the hold then ends with its lease.
			});
		}
	}

}
