package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.AllLocksAcquisition;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * A simulated client that takes two or three locks at once, all or nothing, with the
 * engine's own driver: an {@link AllLocksAcquisition} of a {@link MultiAcquisition}, over
 * a {@link SimulatedPort} of its own, in local lines of its own (one JVM per client). It
 * releases what it won as the engine's multi-lock handle does ({@link HoldWork}).
 * <p>
 * Its end is told through the driver's {@link SettledRun}, as the blocking template's
 * {@code CallerWait} tells it, once the releases of unused grants and the withdrawals the
 * driver sent have replied; a cancel is the driver's {@code cancel()} followed by
 * {@link SettledRun#cancelled}, as the template's interrupt is.
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

	// The port and completion of the current acquisition, which tell its end once what
	// it sent has settled, a cancel's too.
	private @Nullable SettledRun<List<Grant>> settling;

	private boolean cancelled;

	private long startedNanos;

	private int attemptsInFlight;

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
		// Its end is told once it settled, as BlockingAcquisitions.acquireAll's
		// CallerWait tells it.
		SettledRun<List<Grant>> settled = new SettledRun<>(this.port,
				Completion.of((grants) -> granted(started[0], grants), (error) -> failed(started[0], error)),
				MultiLockRun.SETTLE_NANOS, -1);
		// A planted bug drops a command before the SettledRun sees it: never sent, not
		// one that never answers.
		LockPort planted = SimulatedPort.running(settled, (name, operation, call, reply) -> {
			if (!dropped(operation)) {
				settled.run(name, operation, call, reply);
			}
		});
		AllLocksAcquisition acquiring = new AllLocksAcquisition(acquisition, this.commands.on(planted), this.lines,
				settled);
		started[0] = acquiring;
		this.acquiring = acquiring;
		this.settling = settled;
		this.busy = true;
		this.cancelled = false;
		this.startedNanos = this.run.nanos();
		Cancellations.Stop stop = this.run.cancellations().draw();
		if (stop != null && this.run.draws(LockSimulation.Fault.CANCEL)) {
			// A blocking interrupt is a cancel too: the driver has one way to stop.
			this.run.at(stop.delayNanos(), this.name + " is cancelled", () -> cancel(acquiring, first.name()));
		}
		acquiring.start();
	}

	private void granted(AllLocksAcquisition acquiring, List<Grant> grants) {
		if (this.acquiring != acquiring) {
			throw new IllegalStateException(this.name + " is granted by an acquisition that ended");
		}
		this.acquiring = null;
		this.settling = null;
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
		if (this.cancelled && error instanceof LockInterruptedException) {
			// The cancel's end, told once what the run sent settled.
			end();
			return;
		}
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
	 * Stop the acquisition as a blocking caller's interrupt does
	 * ({@code CallerWait.await}): the driver's cancel, then the run's
	 * {@link SettledRun#cancelled}, which tells the cancel's error once what the run sent
	 * settled (waiting, its withdrawals; with an attempt in flight, its reply and the
	 * release of grants it brings).
	 */
	private void cancel(AllLocksAcquisition acquiring, LockName name) {
		SettledRun<List<Grant>> settled = this.settling;
		if (this.acquiring != acquiring || settled == null) {
			return;
		}
		this.cancelled = true;
		if (!acquiring.cancel()) {
			// It ended first, and its end is settling: the caller takes it, as a
			// blocking caller does.
			this.cancelled = false;
			return;
		}
		this.acquiring = null;
		if (this.attemptsInFlight == 0) {
			this.run.cancellations().cancelledAsleep();
		}
		settled.cancelled(new LockInterruptedException(name, new InterruptedException()));
	}

	/**
	 * End the acquisition without the locks, once its end settled (a stopped one is not
	 * measured): the driver withdrew its requests and released grants nobody uses.
	 */
	private void end() {
		this.busy = false;
		this.settling = null;
		next();
	}

	private void next() {
		this.run.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start);
	}

	/**
	 * Return whether a planted bug drops the acquisition's command: the release of a
	 * cancelled waiter's grant, or a withdrawal.
	 */
	private boolean dropped(String operation) {
		LockSimulation.ClientBug bug = this.run.clientBug();
		return switch (operation) {
			case "release" -> this.cancelled && bug == LockSimulation.ClientBug.CANCEL_KEEPS_GRANT;
			case "withdraw" -> bug == LockSimulation.ClientBug.MULTI_SKIPS_WITHDRAWAL
					|| (this.cancelled && bug == LockSimulation.ClientBug.CANCEL_SKIPS_WITHDRAWAL);
			default -> false;
		};
	}

	@Override
	public boolean sending(String operation, ScriptCall call) {
		if (operation.equals("acquire")) {
			this.attemptsInFlight++;
		}
		return true;
	}

	@Override
	public void ended(String operation, @Nullable Object reply, long ranNanos) {
		if (operation.equals("acquire")) {
			this.attemptsInFlight--;
			this.grantRead = reply instanceof List<?> result && Long.valueOf(1).equals(result.get(0));
		}
	}

	@Override
	public void read(String operation) {
		if (!operation.equals("acquire")) {
			return;
		}
		if (this.cancelled && this.busy && this.acquiring == null && this.attemptsInFlight == 0) {
			// Cancelled in flight: the reply ended it, releasing what it granted; its
			// caller hears the cancel once that settled.
			this.run.cancellations().cancelledInFlight(this.grantRead);
		}
		else if (this.grantRead && this.busy) {
			// Granted too late to use: taken again, or released.
			this.run.multiHeld(true);
		}
		this.grantRead = false;
	}

}
