package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.core.NanoClock;
import io.github.distributedlock.redis.driver.Acquiring;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.AllLocksAcquisition;
import io.github.distributedlock.redis.driver.CohortReentry;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.InOrderAcquisition;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.server.LockRequestResolver;

/**
 * The blocking template's acquisitions, each one of the driver's runs, which the caller
 * waits for ({@link CallerWait}). Thread-safe.
 */
public final class BlockingAcquisitions {

	private final BlockingPort port;

	private final LocalLines lines;

	private final BlockingHolds holds;

	private final HoldRegistry registry;

	private final BooleanSupplier cluster;

	private final boolean handOff;

	/**
	 * @param lines the template's local lines over {@code port}, with its cohorts
	 * @param cluster whether Redis is a Cluster, where a multi-lock's keys may be in
	 * several hash slots
	 */
	public BlockingAcquisitions(BlockingPort port, LocalLines lines, BlockingHolds holds, BooleanSupplier cluster,
			boolean handOff) {
		this.port = port;
		this.lines = lines;
		this.holds = holds;
		this.registry = holds.registry();
		this.cluster = cluster;
		this.handOff = handOff;
	}

	/**
	 * Acquire one lock, waiting up to its wait time.
	 * @throws LockTimeoutException if the wait time ran out (the listeners are told)
	 */
	public Grant acquire(LockSpec spec, String owner) {
		CallerWait<Grant> wait = new CallerWait<>(this.port, spec.name(), spec.waitNanos(), spec.progressAware());
		Acquiring run = acquisition(spec, owner, true, commands(wait.run()), wait.run());
		return notAcquiredIfTimeout(() -> wait.await(run));
	}

	/**
	 * Return, unstarted, the acquisition of one lock; a re-entry of the caller that holds
	 * it under a cohort acquires as the cohort's owner ({@link CohortReentry}).
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
	 * Return the owner Redis records for a hold of the caller on the lock: a cohort's, if
	 * the caller holds the lock under one (rule 7), else its own.
	 */
	public String redisOwner(String lockKey, String caller) {
		Cohort holding = this.lines.cohorts().current(lockKey);
		return (holding != null && holding.isHeldBy(caller)) ? holding.owner() : caller;
	}

	/**
	 * Take several exclusive locks as one hold, every one or none, in one global order
	 * (by key), which makes overlapping multi-locks deadlock-free. One script takes them
	 * all, unless on a Cluster their keys are in several hash slots: then one by one, in
	 * the same order ({@link #acquireInOrder}).
	 * @param first the first request, whose wait time and reentrancy the multi-lock has
	 * @param requested every request, in the order asked, each
	 * {@linkplain LockRequestResolver#multiLockable(LockSpec) multi-lockable}
	 * @param start when the acquisition began, in {@link System#nanoTime()}
	 * @throws LockTimeoutException if the locks were not all taken within the wait time
	 * (the listeners are told)
	 */
	public MultiLockHandle acquireAll(LockSpec first, List<LockSpec> requested, String owner, long start) {
		List<LockSpec> specs = MultiAcquisition.inGlobalOrder(requested);
		List<RedisLockHandle> holds;
		if (MultiAcquisition.inOneScript(specs, this.cluster)) {
			MultiAcquisition acquisition = new MultiAcquisition(specs, owner, first.waitNanos(), first.reentrant(),
					this.handOff, NanoClock.SYSTEM, this.port.ids());
			CallerWait<List<Grant>> wait = new CallerWait<>(this.port, specs.get(0).name(), first.waitNanos(),
					specs.get(0).progressAware());
			AcquisitionRun<List<Grant>> run = new AllLocksAcquisition(acquisition, commands(wait.run()), this.lines,
					wait.run());
			List<Grant> grants = notAcquiredIfTimeout(() -> wait.await(run));
			holds = this.holds.holdAll(grants, callBound(first.progressAware() ? -1 : first.waitNanos(), start));
		}
		else {
			holds = acquireInOrder(specs, owner, first.waitNanos(), start, first.progressAware());
		}
		return new MultiLockHandle(holds, Duration.ofNanos(System.nanoTime() - start));
	}

	/**
	 * Take locks one by one in the given (global) order, within one wait time and one
	 * command timeout ({@link InOrderAcquisition}); no lock of it takes part in a cohort
	 * (cohorting.md), but a re-entry of a cohort's holder goes under the cohort's owner.
	 * @param start when the call began, in {@link System#nanoTime()}
	 * @param restarts whether the wait time restarts when a lock changes hands (a
	 * progress-aware wait): then the call has no fixed bound
	 * @throws LockTimeoutException if the wait time ran out (the listeners are told)
	 */
	private List<RedisLockHandle> acquireInOrder(List<LockSpec> specs, String owner, long waitNanos, long start,
			boolean restarts) {
		CallerWait<List<RedisLockHandle>> wait = new CallerWait<>(this.port, specs.get(0).name(), waitNanos, restarts);
		InOrderAcquisition<RedisLockHandle> run = new InOrderAcquisition<>(specs, waitNanos, start,
				restarts ? -1 : commandTimeoutNanos(), wait.run(), inOrderSteps(owner, wait.run()), wait.run());
		List<RedisLockHandle> taken = notAcquiredIfTimeout(() -> wait.await(run));
		this.holds.confirmTaken(taken, callBound(restarts ? -1 : waitNanos, start));
		return taken;
	}

	/**
	 * Return the steps of a multi-lock that the calling thread takes in order, waiting on
	 * {@code caller}.
	 */
	private InOrderAcquisition.Steps<RedisLockHandle> inOrderSteps(String owner, LockPort caller) {
		DriverCommands commands = commands(caller);
		String thread = Thread.currentThread().getName();
		return new InOrderAcquisition.Steps<>() {

			@Override
			public Acquiring acquire(LockSpec spec, Completion<Grant> completion) {
				return acquisition(spec, owner, false, commands, completion);
			}

			/**
			 * Register the lock, renewed while the next is taken; on the thread of the
			 * reply, so nothing here blocks: the replica check and the listeners come on
			 * the caller's thread once every lock is taken.
			 */
			@Override
			public RedisLockHandle hold(Grant grant) {
				return BlockingAcquisitions.this.holds.taken(grant, thread);
			}

			/**
			 * Release through the call's port: a caller that leaves after a timeout waits
			 * for the reply (within the call's bound), so that its next acquisition finds
			 * the lock free rather than its own.
			 */
			@Override
			public void release(RedisLockHandle held) {
				held.hold().releaseUnused(caller, Completion.of((result) -> {
				}, (error) -> {
					// Its lease ends it.
				}));
			}

			@Override
			public boolean isLive(RedisLockHandle held) {
				return held.hold().isLive(caller.nanoTime());
			}

		};
	}

	/**
	 * Return the bound of a call that began at {@code start} (on
	 * {@link System#nanoTime()}) with the given wait time: the wait time plus one command
	 * timeout; none if either is unbounded or unknown.
	 */
	public Deadline callBound(long waitNanos, long start) {
		long timeout = commandTimeoutNanos();
		return new Deadline((waitNanos < 0 || timeout < 0) ? -1 : waitNanos + timeout, start);
	}

	private long commandTimeoutNanos() {
		Duration timeout = this.port.commandTimeout();
		return (timeout != null) ? timeout.toNanos() : -1;
	}

	private DriverCommands commands(LockPort caller) {
		return new DriverCommands(caller, LockKeys.FENCE_IDLE_MILLIS, this.handOff, this.registry);
	}

	private <G> G notAcquiredIfTimeout(Supplier<G> acquisition) {
		try {
			return acquisition.get();
		}
		catch (LockTimeoutException ex) {
			this.registry.notAcquired(ex.getLockName(), ex.getWaited());
			throw ex;
		}
	}

}
