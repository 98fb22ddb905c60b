package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.AllLocksAcquisition;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.simulation.SimulationRandom;

/**
 * What a client of a run of multi-locks does with the holds an acquisition won, from the
 * grant to the release: drawn from the run's PRNG of its own
 * ({@link MultiLockRun#life()}), each only if the run draws its fault, so that a run that
 * draws none of them is the run it was.
 * <ul>
 * <li>A quarter of the multi-locks are renewed as the watchdog does
 * ({@link Fault#RENEW}), and worked on up to three leases; a quarter are extended to 150
 * ms, 1 s or 2.5 s ({@link Fault#EXTEND}); a quarter re-enter one of their locks with one
 * of those leases ({@link Fault#REENTER}), as the blocking template re-enters a lock its
 * owner holds through a handle: the driver's acquisition ({@link AcquisitionRun#of}), a
 * try (no wait) that says the owner holds the lock.</li>
 * <li>A quarter of the single locks' writers take a multi-lock of their lock and one or
 * two others while they hold it ({@link Fault#REENTER}): a try with the driver's
 * {@link AllLocksAcquisition} of a reentrant {@link MultiAcquisition}, with one of those
 * leases.</li>
 * <li>A nested hold is renewed or extended in turn, half of the time each, and released
 * before the hold it is nested in. A grant that came too late is the driver's to take
 * again or release; the thread goes on once that release replied, as the re-entry's
 * {@code SettledRun} tells its end.</li>
 * </ul>
 * The re-entries run on a port of the holder's own, in the local lines of its JVM.
 */
final class HoldWork {

	private final MultiLockRun run;

	private final String holder;

	private final String owner;

	private final SimulationRandom random;

	private final SimulatedPort port;

	private final DriverCommands commands;

	private final LocalLines lines;

	/**
	 * @param lines the local lines of the holder's JVM
	 */
	HoldWork(MultiLockRun run, String holder, String owner, LocalLines lines) {
		this.run = run;
		this.holder = holder;
		this.owner = owner;
		this.random = run.life();
		this.port = new SimulatedPort(holder, run.world());
		this.commands = new DriverCommands(this.port, Long.parseLong(MultiLockRun.FENCE_IDLE_MS), true,
				EngineParts.NO_WATCH);
		this.lines = lines;
	}

	/**
	 * Draw the minimum hold of a multi-lock acquisition ({@link Fault#MULTI_KEEP}): a
	 * quarter hold their locks at least 49, 50, 51, 149, 150, 151, 999 or 1,000 ms (a
	 * third of the shortest lease, the shortest lease, the lock's lease), else 0.
	 */
	long minimumHold() {
		long[] minimums = { LockSimulation.OTHER_LEASES_MS[0] / 3, LockSimulation.OTHER_LEASES_MS[0],
				LockSimulation.LEASE_MS };
		boolean keeps = this.random.nextInt(4) == 0;
		long minimum = minimums[this.random.nextInt(minimums.length)] - 1 + this.random.nextInt(3);
		return (keeps && this.run.draws(Fault.MULTI_KEEP)) ? Math.min(minimum, LockSimulation.LEASE_MS) : 0;
	}

	/**
	 * Work with a multi-lock's holds for {@code work} (longer if they are renewed), then
	 * release them and run {@code then}.
	 */
	void multiLock(HeldLocks held, long work, Runnable then) {
		boolean renews = this.random.nextInt(4) == 0 && this.run.draws(Fault.RENEW);
		long renewedWork = this.random.between(0, 3 * LockSimulation.LEASE_MS * LockSimulation.MS);
		boolean extends_ = this.random.nextInt(4) == 0 && this.run.draws(Fault.EXTEND);
		boolean reenters = this.random.nextInt(4) == 0 && this.run.draws(Fault.REENTER);
		long working = renews ? renewedWork : work;
		if (renews) {
			held.renewFromNow();
		}
		if (extends_) {
			long lease = lease();
			this.run.at(this.random.between(0, working), this.holder + " extends " + held.holds(),
					() -> held.extend(lease));
		}
		if (reenters) {
			ClientHold which = held.holds().get(this.random.nextInt(held.holds().size()));
			this.run.at(this.random.between(0, working), this.holder + " re-enters " + which,
					() -> reenterSingly(held, which, working));
		}
		this.run.at(working, this.holder + " releases " + held.holds(), () -> held.release(then));
	}

	/**
	 * Work with a single lock's hold for {@code work}, then release it and run
	 * {@code then}.
	 */
	void singleLock(HeldLocks held, long work, boolean reader, Runnable then) {
		boolean reenters = this.random.nextInt(4) == 0 && this.run.draws(Fault.REENTER) && !reader;
		if (reenters) {
			this.run.at(this.random.between(0, work),
					this.holder + " re-enters " + held.holds().get(0) + " with a multi-lock",
					() -> reenterAll(held, work));
		}
		this.run.at(work, this.holder + " releases " + held.holds(), () -> held.release(then));
	}

	private long lease() {
		return LockSimulation.OTHER_LEASES_MS[this.random.nextInt(LockSimulation.OTHER_LEASES_MS.length)];
	}

	/**
	 * Take one of a multi-lock's locks again, with another lease, as its owner's thread
	 * does through a handle it holds.
	 */
	private void reenterSingly(HeldLocks outer, ClientHold which, long work) {
		if (!which.live(this.run.nanos())) {
			return;
		}
		LockSpec spec = LockSimulation.reentrant(which.grant.spec(), lease());
		outer.busy();
		SettledRun<Grant> settled = settled(Completion.of((grant) -> {
			this.run.counted(MultiLockRun.Counted.REENTERED_SINGLY);
			ClientHold inner = this.run.checks().held(this.holder, this.owner, grant, this.port.ranNanos(), which);
			nested(outer, outer.nested(List.of(inner)), work);
		}, (error) -> notReentered(outer, error)));
		AcquisitionRun.of(spec, this.owner, true, true, true, this.commands.on(settled), this.lines, settled).start();
	}

	/**
	 * Take a multi-lock of a single lock held and one or two others, reentrant, without
	 * waiting, as the holder's thread does through the engine's {@code acquireAll}.
	 */
	private void reenterAll(HeldLocks outer, long work) {
		ClientHold which = outer.holds().get(0);
		if (!which.live(this.run.nanos())) {
			return;
		}
		long lease = lease();
		List<String> others = new ArrayList<>(this.run.keys());
		others.remove(which.grant.spec().name().key());
		int count = 1 + this.random.nextInt(2);
		List<String> asked = new ArrayList<>();
		asked.add(which.grant.spec().name().key());
		while (asked.size() <= count) {
			asked.add(others.remove(this.random.nextInt(others.size())));
		}
		List<LockSpec> requested = asked.stream()
			.map((key) -> LockSimulation.reentrant(this.run.spec(key, 0), lease))
			.toList();
		MultiAcquisition acquisition = new MultiAcquisition(MultiAcquisition.inGlobalOrder(requested), this.owner, 0,
				true, true, this.run::nanos, this.port.ids());
		outer.busy();
		SettledRun<List<Grant>> settled = settled(Completion.of((grants) -> {
			this.run.counted(MultiLockRun.Counted.REENTERED_BY_A_MULTI_LOCK);
			long ranNanos = this.port.ranNanos();
			List<ClientHold> inner = new ArrayList<>();
			for (Grant grant : grants) {
				inner.add(this.run.checks()
					.held(this.holder, this.owner, grant, ranNanos, outer.of(grant.spec().lockKey())));
			}
			nested(outer, outer.nested(inner), work);
		}, (error) -> notReentered(outer, error)));
		new AllLocksAcquisition(acquisition, this.commands.on(settled), this.lines, settled).start();
	}

	/**
	 * Return the port and completion of a re-entry, which tell its end once what it sent
	 * settled (the release of a late grant), as both templates tell it.
	 */
	private <G> SettledRun<G> settled(Completion<G> told) {
		return new SettledRun<>(this.port, told, MultiLockRun.SETTLE_NANOS, -1);
	}

	/**
	 * A re-entry ended without its locks, once its end settled: another owner holds one
	 * of them (a try gives up), or its grants came too late.
	 */
	private void notReentered(HeldLocks outer, Throwable error) {
		if (!(error instanceof LockTimeoutException)) {
			throw new IllegalStateException(this.holder + "'s re-entry: " + error, error);
		}
		outer.idle();
	}

	/**
	 * Work with a nested hold, then release it before the hold it is nested in.
	 */
	private void nested(HeldLocks outer, HeldLocks inner, long work) {
		if (this.random.nextInt(2) == 0 && this.run.draws(Fault.RENEW)) {
			inner.renewFromNow();
		}
		if (this.random.nextInt(2) == 0 && this.run.draws(Fault.EXTEND)) {
			long lease = lease();
			this.run.at(this.random.between(0, work), this.holder + " extends " + inner.holds(),
					() -> inner.extend(lease));
		}
		this.run.at(this.random.between(0, work), this.holder + " releases " + inner.holds(),
				() -> inner.release(outer::idle));
	}

}
