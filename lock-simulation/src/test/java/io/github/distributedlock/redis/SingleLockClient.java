package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.SingleAcquisition;
import org.jspecify.annotations.Nullable;

/**
 * A client that takes one of the locks at a time, with the engine's own driver (a
 * {@link SingleAcquisition}, from {@link AcquisitionRun#of}) over a {@link SimulatedPort}
 * of its own, as {@link LockSimulation}'s clients do: each lock has a local line of its
 * own in the client's JVM.
 */
final class SingleLockClient {

	private final String name;

	private final String owner;

	private final MultiLockRun run;

	private final SimulatedPort port;

	private final DriverCommands commands;

	private final LocalLines lines;

	private int left;

	private @Nullable AcquisitionRun<Grant> acquiring;

	private long startedNanos;

	// Whether it takes the read lock of the name.
	private final boolean reader;

	// What it does with the lock it holds.
	private final HoldWork work;

	SingleLockClient(MultiLockRun run, String name, String owner, int acquisitions, boolean reader) {
		this.run = run;
		this.name = name;
		this.owner = owner;
		this.left = acquisitions;
		this.reader = reader;
		this.port = new SimulatedPort(name, run.world());
		this.commands = new DriverCommands(this.port, Long.parseLong(MultiLockRun.FENCE_IDLE_MS), true,
				EngineParts.NO_WATCH);
		this.lines = EngineParts.lines(new SimulatedPort(name, run.world()));
		this.work = new HoldWork(run, name, owner, this.lines);
	}

	boolean reader() {
		return this.reader;
	}

	boolean done() {
		return this.left <= 0 && this.acquiring == null;
	}

	void start() {
		if (this.left-- <= 0) {
			return;
		}
		String key = this.run.keys().get(this.run.random().nextInt(this.run.keys().size()));
		LockSpec spec = this.run.spec(key, this.reader);
		this.run.note(this.name + " takes " + key);
		@SuppressWarnings("unchecked")
		AcquisitionRun<Grant>[] started = new AcquisitionRun[1];
		// Its end is told once what it sent settled (the release of a late grant), as
		// both templates tell it.
		SettledRun<Grant> settled = new SettledRun<>(this.port,
				Completion.of((grant) -> granted(started[0], grant), (error) -> failed(started[0], error)),
				MultiLockRun.SETTLE_NANOS, -1);
		AcquisitionRun<Grant> acquiring = AcquisitionRun.of(spec, this.owner, LockOwners.isCustom(this.owner), true,
				true, this.commands.on(settled), this.lines, settled);
		started[0] = acquiring;
		this.acquiring = acquiring;
		this.startedNanos = this.run.nanos();
		acquiring.start();
	}

	private void granted(AcquisitionRun<Grant> acquiring, Grant grant) {
		if (this.acquiring != acquiring) {
			throw new IllegalStateException(this.name + " is granted by an acquisition that ended");
		}
		this.acquiring = null;
		this.run.waited(this.name, false, this.startedNanos, true);
		ClientHold held = this.run.checks().held(this.name, this.owner, grant, this.port.ranNanos(), null);
		this.work.singleLock(this.run.heldLocks(this.name, this.owner, List.of(held)), this.run.work(), this.reader,
				this::next);
	}

	private void failed(AcquisitionRun<Grant> acquiring, Throwable error) {
		if (this.acquiring != acquiring || !(error instanceof LockTimeoutException)) {
			throw new IllegalStateException(this.name + ": " + error, error);
		}
		this.acquiring = null;
		this.run.waited(this.name, false, this.startedNanos, false);
		next();
	}

	private void next() {
		this.run.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start);
	}

}
