package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.AllLocksAcquisition;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * A simulated client that takes two or three locks at once, all or nothing, with the
 * engine's own driver: an {@link AllLocksAcquisition} of a {@link MultiAcquisition}, over
 * a {@link SimulatedPort} of its own, in local lines of its own (one JVM per client). It
 * releases what it won as the engine's multi-lock handle does ({@link HoldWork}).
 * <p>
 * A cancel is the driver's {@code cancel()}; the client goes on once the driver's
 * releases of unused grants and its withdrawals have replied, as a thread's next command
 * follows them on its connection.
 */
final class MultiClient implements SimulatedPort.Calls {

	private final MultiLockRun run;

	private final String name;

	private final String owner;

	private final SimulatedPort port;

	private final DriverCommands commands;

	private final LocalLines lines;

	private int left;

	// Acquiring: from its start until it holds, or goes on without the locks.
	private boolean busy;

	// The driver's acquisition under way, until it ends or is cancelled.
	private @Nullable AllLocksAcquisition acquiring;

	private boolean cancelled;

	private long startedNanos;

	private int attemptsInFlight;

	// Releases and withdrawals the driver sent whose replies did not come yet.
	private int cleanUpsInFlight;

	private @Nullable Runnable afterCleanUps;

	// Whether the attempt whose reply is being read was granted every lock.
	private boolean grantRead;

	// What it does with the locks it holds.
	private final HoldWork work;

	MultiClient(MultiLockRun run, String name, String owner, int acquisitions) {
		this.run = run;
		this.name = name;
		this.owner = owner;
		this.left = acquisitions;
		this.port = new SimulatedPort(name, run.world(), this);
		this.commands = new DriverCommands(this.port, Long.parseLong(MultiLockRun.FENCE_IDLE_MS), true,
				EngineParts.NO_WATCH);
		this.lines = EngineParts.lines(new SimulatedPort(name, run.world()));
		this.work = new HoldWork(run, name, owner, this.lines);
	}

	boolean done() {
		return this.left <= 0 && !this.busy;
	}

	void start() {
		if (this.left-- <= 0) {
			return;
		}
		// Two or three of the names, in an order of the caller's, which the engine puts
		// in its global order (by key, as BlockingAcquisitions.acquireAll does) before it
		// takes them.
		List<String> keys = new ArrayList<>(this.run.keys());
		int count = 2 + this.run.random().nextInt(2);
		List<String> asked = new ArrayList<>();
		while (asked.size() < count) {
			asked.add(keys.remove(this.run.random().nextInt(keys.size())));
		}
		long minimumHold = this.work.minimumHold();
		List<LockSpec> specs = MultiAcquisition
			.inGlobalOrder(asked.stream().map((key) -> this.run.spec(key, minimumHold)).toList());
		this.run.note(this.name + " takes " + asked + " at once"
				+ ((minimumHold > 0) ? ", each for at least " + minimumHold + " ms" : ""));
		LockSpec first = specs.get(0);
		MultiAcquisition acquisition = new MultiAcquisition(specs, this.owner, first.waitNanos(), first.reentrant(),
				true, this.run::nanos, this.port.ids());
		AllLocksAcquisition[] started = new AllLocksAcquisition[1];
		AllLocksAcquisition acquiring = new AllLocksAcquisition(acquisition, this.commands, this.lines,
				Completion.of((grants) -> granted(started[0], grants), (error) -> failed(started[0], error)));
		started[0] = acquiring;
		this.acquiring = acquiring;
		this.busy = true;
		this.cancelled = false;
		this.startedNanos = this.run.nanos();
		Cancellations.Stop stop = this.run.cancellations().draw();
		if (stop != null && this.run.draws(LockSimulation.Fault.CANCEL)) {
			// A blocking interrupt is a cancel too: the driver has one way to stop.
			this.run.at(stop.delayNanos(), this.name + " is cancelled", () -> cancel(acquiring));
		}
		acquiring.start();
	}

	private void granted(AllLocksAcquisition acquiring, List<Grant> grants) {
		if (this.acquiring != acquiring) {
			throw new IllegalStateException(this.name + " is granted by an acquisition that ended");
		}
		this.acquiring = null;
		this.busy = false;
		this.run.multiHeld(false);
		this.run.waited(this.name, true, this.startedNanos, true);
		long ranNanos = this.port.ranNanos();
		List<ClientHold> holds = new ArrayList<>();
		for (Grant grant : grants) {
			holds.add(this.run.checks().held(this.name, this.owner, grant, ranNanos, null));
		}
		// Released in reverse order, each once the release before it replied, as
		// MultiLockHandle.releaseAll closes them.
		this.work.multiLock(this.run.heldLocks(this.name, this.owner, holds), this.run.work(), this::next);
	}

	private void failed(AllLocksAcquisition acquiring, Throwable error) {
		if (this.acquiring != acquiring) {
			throw new IllegalStateException(this.name + " hears of an acquisition that ended: " + error);
		}
		this.acquiring = null;
		if (!(error instanceof LockTimeoutException)) {
			// Nobody holds a lock it asks for but other owners: no self-deadlock.
			if (error instanceof LockSelfDeadlockException) {
				this.run.checks().violated(this.name + " was told it deadlocks itself: " + error.getMessage());
			}
			throw new IllegalStateException(this.name + ": " + error, error);
		}
		this.run.waited(this.name, true, this.startedNanos, false);
		end();
	}

	/**
	 * Stop the acquisition with the driver's cancel: waiting, it ends at once; with an
	 * attempt in flight, the reply ends it, and grants it brings are released.
	 */
	private void cancel(AllLocksAcquisition acquiring) {
		if (this.acquiring != acquiring) {
			return;
		}
		this.acquiring = null;
		this.cancelled = true;
		acquiring.cancel();
		if (this.attemptsInFlight == 0) {
			this.run.cancellations().cancelledAsleep();
			end();
		}
	}

	/**
	 * End the acquisition without the locks (a stopped one is not measured), and go on
	 * once the driver's clean-ups have replied.
	 */
	private void end() {
		this.busy = false;
		if (this.cleanUpsInFlight > 0) {
			this.afterCleanUps = this::next;
			return;
		}
		next();
	}

	private void next() {
		this.run.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start);
	}

	@Override
	public boolean sending(String operation, ScriptCall call) {
		LockSimulation.ClientBug bug = this.run.clientBug();
		switch (operation) {
			case "acquire" -> this.attemptsInFlight++;
			case "release" -> {
				if (this.cancelled && bug == LockSimulation.ClientBug.CANCEL_KEEPS_GRANT) {
					return false;
				}
				this.cleanUpsInFlight++;
			}
			case "withdraw" -> {
				if (bug == LockSimulation.ClientBug.MULTI_SKIPS_WITHDRAWAL
						|| (this.cancelled && bug == LockSimulation.ClientBug.CANCEL_SKIPS_WITHDRAWAL)) {
					return false;
				}
				this.cleanUpsInFlight++;
			}
			default -> {
			}
		}
		return true;
	}

	@Override
	public void ended(String operation, @Nullable Object reply, long ranNanos) {
		if (operation.equals("acquire")) {
			this.attemptsInFlight--;
			this.grantRead = reply instanceof List<?> result && Long.valueOf(1).equals(result.get(0));
		}
		else if (--this.cleanUpsInFlight == 0 && this.afterCleanUps != null) {
			Runnable then = this.afterCleanUps;
			this.afterCleanUps = null;
			this.run.at(0, this.name + " goes on", then);
		}
	}

	@Override
	public void read(String operation) {
		if (!operation.equals("acquire")) {
			return;
		}
		if (this.cancelled && this.busy && this.acquiring == null && this.attemptsInFlight == 0) {
			// Cancelled in flight: the reply ended it, releasing what it granted.
			this.run.cancellations().cancelledInFlight(this.grantRead);
			end();
		}
		else if (this.grantRead && this.busy) {
			// Granted too late to use: taken again, or released.
			this.run.multiHeld(true);
		}
		this.grantRead = false;
	}

}
