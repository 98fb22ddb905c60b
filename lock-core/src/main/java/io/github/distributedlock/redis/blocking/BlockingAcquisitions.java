package io.github.distributedlock.redis.blocking;

import java.util.List;
import java.util.function.Supplier;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockKeys;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.AllLocksAcquisition;
import io.github.distributedlock.redis.driver.CohortReentry;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.FairAcquisition;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.SingleAcquisition;

/**
 * The blocking template's acquisitions, each one of the driver's run on the caller's
 * thread ({@link CallerWait}). Thread-safe.
 */
public final class BlockingAcquisitions implements AutoCloseable {

	private final BlockingPort port;

	private final LocalLines lines;

	private final HoldRegistry holds;

	private final LeaseWrites leaseWrites;

	private final boolean handOff;

	/**
	 * @param lines the template's local lines over {@code port}, with its cohorts
	 */
	public BlockingAcquisitions(BlockingPort port, LocalLines lines, HoldRegistry holds, boolean handOff) {
		this.port = port;
		this.lines = lines;
		this.holds = holds;
		this.leaseWrites = new LeaseWrites(holds);
		this.handOff = handOff;
	}

	/**
	 * Acquire one lock, waiting up to its wait time.
	 * @throws LockTimeoutException if the wait time ran out (the listeners are told)
	 */
	public Grant acquire(LockSpec spec, String owner) {
		return acquire(spec, owner, true);
	}

	/**
	 * Acquire one lock, waiting up to its wait time.
	 * @param cohorts whether it may open a cohort or take a pass: not for a lock of a
	 * multi-lock; a re-entry of a cohort's holder goes under the cohort's owner either
	 * way
	 */
	Grant acquire(LockSpec spec, String owner, boolean cohorts) {
		CohortReentry reentry = CohortReentry.start(this.lines, spec, owner);
		if (reentry != null) {
			return reenter(spec, reentry);
		}
		return acquire(spec, owner, this.holds.holdsLocally(owner, spec.lockKey()), cohorts);
	}

	private Grant acquire(LockSpec spec, String owner, boolean holdsIt, boolean cohorts) {
		CallerRunsPort caller = new CallerRunsPort(this.port);
		DriverCommands commands = commands(caller);
		CallerWait<Grant> wait = new CallerWait<>(caller);
		AcquisitionRun<Grant> run = spec.kind().queuesInRedis()
				? new FairAcquisition(spec, owner, holdsIt, commands, this.lines, wait) : single(
						new SingleAcquisition(spec, owner, holdsIt, this.handOff, commands, this.lines, wait), cohorts);
		return notAcquiredIfTimeout(() -> wait.await(run, spec.name(), spec.waitNanos(), spec.progressAware()));
	}

	private static SingleAcquisition single(SingleAcquisition acquisition, boolean cohorts) {
		if (!cohorts) {
			acquisition.keepOutOfCohorts();
		}
		return acquisition;
	}

	/**
	 * Acquire again a lock the caller holds under a cohort, as the cohort's owner
	 * (docs/design/cohorting.md, rule 7; {@link CohortReentry}).
	 */
	private Grant reenter(LockSpec spec, CohortReentry reentry) {
		Grant grant;
		try {
			grant = acquire(spec, reentry.owner(), true, false);
		}
		catch (RuntimeException ex) {
			reentry.failed(ex instanceof LockTimeoutException);
			throw ex;
		}
		return reentry.granted(grant);
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
	 * Acquire several locks with one script, all or none.
	 * @return one grant per lock, in the acquisition's order
	 * @throws LockTimeoutException if the wait time ran out (the listeners are told)
	 */
	List<Grant> acquireAll(MultiAcquisition acquisition, long waitNanos) {
		CallerRunsPort caller = new CallerRunsPort(this.port);
		CallerWait<List<Grant>> wait = new CallerWait<>(caller);
		AcquisitionRun<List<Grant>> run = new AllLocksAcquisition(acquisition, commands(caller), this.lines, wait);
		return notAcquiredIfTimeout(() -> wait.await(run, acquisition.specs().get(0).name(), waitNanos,
				acquisition.specs().get(0).progressAware()));
	}

	private DriverCommands commands(CallerRunsPort caller) {
		return new DriverCommands(caller, LockKeys.FENCE_IDLE_MILLIS, this.handOff, this.leaseWrites);
	}

	private <G> G notAcquiredIfTimeout(Supplier<G> acquisition) {
		try {
			return acquisition.get();
		}
		catch (LockTimeoutException ex) {
			this.holds.notAcquired(ex.getLockName(), ex.getWaited());
			throw ex;
		}
	}

	public int waiting() {
		return this.lines.waiting();
	}

	/**
	 * Return how many locks have a line (and, except for polling, a subscription).
	 */
	public int lineCount() {
		return this.lines.size();
	}

	/**
	 * Fail every waiter, and drop every subscription.
	 */
	@Override
	public void close() {
		this.lines.close();
	}

}
