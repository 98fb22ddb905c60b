package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import io.github.distributedlock.redis.LockSimulation.Fault;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.AttemptOutcome;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.script.ExclusiveKind;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;
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
 * of those leases ({@link Fault#REENTER}), through the engine's own {@link Acquisition},
 * a try (no wait) that counts as holding the lock, as {@code WaitLoop} asks when the
 * owner holds it through a local handle.</li>
 * <li>A quarter of the single locks' writers take a multi-lock of their lock and one or
 * two others while they hold it ({@link Fault#REENTER}): a try with the engine's own
 * {@link MultiAcquisition} and {@code acquire-all.lua}, reentrant, with one of those
 * leases.</li>
 * <li>A nested hold is renewed or extended in turn, half of the time each, and released
 * before the hold it is nested in; a grant that came too late is released at once.</li>
 * </ul>
 */
final class HoldWork {

	private final MultiLockRun run;

	private final String holder;

	private final String owner;

	private final SimulationRandom random;

	HoldWork(MultiLockRun run, String holder, String owner) {
		this.run = run;
		this.holder = holder;
		this.owner = owner;
		this.random = run.life();
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
		Acquisition reentry = new Acquisition(spec, this.owner, true, this.run::nanos);
		Acquisition.Attempt attempt = reentry.next(null);
		ScriptCall call = spec.kind()
			.acquire(spec, new LockKind.Attempt(this.owner, attempt.hold(), attempt.remainingWaitMillis(),
					attempt.mayHaveIntent(), attempt.holdsIt(), attempt.request()), MultiLockRun.FENCE_IDLE_MS);
		outer.busy();
		this.run.send(this.holder, call, "re-entry of " + which, () -> {
		}, (reply, ranNanos) -> {
			AcquireResult result = ScriptReplies.acquireResult(spec, (List<?>) reply);
			AttemptOutcome outcome = reentry.replied(attempt, result, false);
			if (outcome instanceof AttemptOutcome.Held granted) {
				this.run.counted(MultiLockRun.Counted.REENTERED_SINGLY);
				ClientHold inner = this.run.checks().held(this.holder, this.owner, granted.grant(), ranNanos, which);
				nested(outer, outer.nested(List.of(inner)), work);
			}
			else if (outcome instanceof AttemptOutcome.Late late) {
				releaseUnused(List.of(late.grant()), outer);
			}
			else {
				outer.idle();
			}
		});
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
		TreeMap<String, LockSpec> ordered = new TreeMap<>();
		for (String key : asked) {
			LockSpec spec = LockSimulation.reentrant(this.run.spec(key, 0), lease);
			ordered.putIfAbsent(spec.lockKey(), spec);
		}
		MultiAcquisition acquisition = new MultiAcquisition(new ArrayList<>(ordered.values()), this.owner, 0, true,
				true, this.run::nanos);
		outer.busy();
		attemptAll(outer, acquisition, work);
	}

	private void attemptAll(HeldLocks outer, MultiAcquisition acquisition, long work) {
		List<LockSpec> specs = acquisition.specs();
		long sentNanos = acquisition.next();
		ScriptCall call = ExclusiveKind.acquireAll(specs, this.owner, acquisition.hold(), acquisition.reentrant(),
				acquisition.request(), MultiLockRun.FENCE_IDLE_MS);
		List<String> keys = specs.stream().map((spec) -> spec.name().key()).toList();
		this.run.send(this.holder, call, "re-entry by acquire-all " + keys, () -> {
		}, (reply, ranNanos) -> {
			MultiAcquireResult result = ScriptReplies.multiAcquireResult(specs.get(0).name(), specs.size(),
					(List<?>) reply);
			MultiAcquisition.Outcome outcome = acquisition.replied(sentNanos, result);
			if (outcome instanceof MultiAcquisition.Granted granted && !granted.late()) {
				this.run.counted(MultiLockRun.Counted.REENTERED_BY_A_MULTI_LOCK);
				List<ClientHold> inner = new ArrayList<>();
				for (Grant grant : granted.grants()) {
					inner.add(this.run.checks()
						.held(this.holder, this.owner, grant, ranNanos, outer.of(grant.spec().lockKey())));
				}
				nested(outer, outer.nested(inner), work);
			}
			else if (outcome instanceof MultiAcquisition.Granted granted && acquisition.retriesLateGrant()) {
				attemptAll(outer, acquisition, work);
			}
			else if (outcome instanceof MultiAcquisition.Granted granted) {
				releaseUnused(granted.grants(), outer);
			}
			else if (outcome instanceof MultiAcquisition.Failed failed) {
				throw new IllegalStateException(this.holder + ": " + failed.error());
			}
			else {
				// Another owner holds one of the locks: a try gives up.
				outer.idle();
			}
		});
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

	/**
	 * Release what a re-entry granted too late to use, each release's reply read before
	 * the thread goes on.
	 */
	private void releaseUnused(List<Grant> grants, HeldLocks outer) {
		List<ScriptCall> releases = grants.stream()
			.map((grant) -> grant.spec().kind().release(grant.spec(), this.owner, grant.token(), grant.hold(), true, 0))
			.toList();
		this.run.sendInTurn(this.holder, releases, "release of a late re-entry", outer::idle);
	}

}
