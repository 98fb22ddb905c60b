package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.driver.Acquiring;
import io.github.distributedlock.redis.driver.AcquisitionRun;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.DriverCommands;
import io.github.distributedlock.redis.driver.InOrderAcquisition;
import io.github.distributedlock.redis.driver.LocalLines;
import io.github.distributedlock.redis.driver.SettledRun;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * A simulated client that takes two or three locks one by one, in the global order, as
 * both templates do on a Cluster whose slots split the keys: the engine's own
 * {@link InOrderAcquisition}, with steps that mirror the blocking template's (each lock a
 * {@code SingleAcquisition} out of cohorts, held as soon as it is taken and renewed while
 * the next is taken, released without waiting on a failure), inside a {@link SettledRun}
 * as the templates end their calls, over a {@link SimulatedPort} of its own, as a Cluster
 * client's connections carry commands ({@link InOrderPort}).
 * <p>
 * Checked, besides the holds ({@link MultiLockChecks}, from each lock's grant): every
 * call is told its end within its wait time plus one command timeout
 * ({@link InOrderCalls}); no lock waits past the call's wait time (an attempt sent after
 * it is a try); a call that ends without its locks has released every lock it took; and a
 * granted call's locks are all live by their handles, and held in Redis.
 */
final class InOrderClient implements SimulatedPort.Calls {

	private final MultiLockRun run;

	private final String name;

	private final String owner;

	private final SimulatedPort port;

	// The port of its calls: its connections, in order per lock, with their timeout.
	private final InOrderPort callPort;

	private final DriverCommands commands;

	private final LocalLines lines;

	private final HoldWork work;

	private int left;

	// From a call's start until it holds, or goes on without the locks.
	private boolean busy;

	// The call under way, until its caller is told its end or cancels it.
	private @Nullable Call call;

	// Releases and withdrawals sent whose replies did not come yet.
	private int cleanUpsInFlight;

	private @Nullable Runnable afterCleanUps;

	InOrderClient(MultiLockRun run, String name, String owner, int acquisitions) {
		this.run = run;
		this.name = name;
		this.owner = owner;
		this.left = acquisitions;
		this.port = new SimulatedPort(name, run.world(), this);
		this.callPort = new InOrderPort(this.port, run.inOrderCalls().commandTimeoutNanos(),
				(what) -> run.note(name + "'s " + what));
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
		// Drawn as MultiClient draws them.
		List<String> keys = new ArrayList<>(this.run.keys());
		int count = 2 + this.run.random().nextInt(2);
		List<String> asked = new ArrayList<>();
		while (asked.size() < count) {
			asked.add(keys.remove(this.run.random().nextInt(keys.size())));
		}
		long minimumHold = this.work.minimumHold();
		List<LockSpec> specs = MultiAcquisition
			.inGlobalOrder(asked.stream().map((key) -> this.run.spec(key, minimumHold)).toList());
		this.run.note(this.name + " takes " + asked + " in order"
				+ ((minimumHold > 0) ? ", each for at least " + minimumHold + " ms" : ""));
		InOrderCalls calls = this.run.inOrderCalls();
		long timeout = calls.commandTimeoutNanos();
		Call call = new Call(specs, this.run.nanos(), specs.get(0).waitNanos());
		// The run's end is told once it settled, as CallerWait tells it: settled within
		// one command timeout, and never past the call's bound.
		SettledRun<List<ClientHold>> settled = new SettledRun<>(this.callPort,
				Completion.of((holds) -> granted(call, holds), (error) -> failed(call, error)), timeout,
				calls.boundNanos(call.waitNanos));
		call.settled = settled;
		InOrderAcquisition<ClientHold> acquiring = new InOrderAcquisition<>(specs, call.waitNanos, call.startedNanos,
				timeout, settled, steps(call, this.commands.on(settled)), settled);
		call.acquiring = acquiring;
		this.call = call;
		this.busy = true;
		calls.started();
		this.run.at(calls.boundNanos(call.waitNanos) + 1, this.name + "'s call taken in order is due",
				() -> checkEnded(call));
		Cancellations.Stop stop = this.run.cancellations().draw();
		if (stop != null && this.run.draws(LockSimulation.Fault.CANCEL)) {
			// A blocking interrupt: the driver's one way to stop.
			this.run.at(stop.delayNanos(), this.name + " is cancelled", () -> cancel(call));
		}
		acquiring.start();
	}

	/**
	 * Return the steps of a call, as the blocking template's: each lock a single
	 * acquisition out of cohorts (no cohort re-entry: the clients hold no cohorts), held
	 * as soon as it is taken and renewed if its lock is, as the registry renews it, live
	 * as its {@code LockHold} says by the client's clock, and released through the call's
	 * port without waiting.
	 */
	private InOrderAcquisition.Steps<ClientHold> steps(Call call, DriverCommands commands) {
		return new InOrderAcquisition.Steps<>() {

			@Override
			public Acquiring acquire(LockSpec spec, Completion<Grant> completion) {
				// The planted bug waits the whole wait time for each lock.
				LockSpec asked = (InOrderClient.this.run.clientBug() == LockSimulation.ClientBug.IN_ORDER_FRESH_WAIT)
						? call.specs.get(spec.lockKey()) : spec;
				return AcquisitionRun.of(asked, InOrderClient.this.owner, null,
						LockOwners.isCustom(InOrderClient.this.owner), false, true, commands, InOrderClient.this.lines,
						completion);
			}

			@Override
			public ClientHold hold(Grant grant) {
				return taken(call, grant);
			}

			@Override
			public boolean isLive(ClientHold held) {
				// The planted bug grants what it took without asking, as the engine did.
				if (InOrderClient.this.run.clientBug() == LockSimulation.ClientBug.IN_ORDER_GRANTS_LAPSED) {
					return true;
				}
				boolean live = held.hold.isLive(InOrderClient.this.port.nanoTime());
				if (!live) {
					// The engine takes the locks again from the first.
					InOrderClient.this.run.inOrderCalls().restarted(call.restarts++ == 0);
					InOrderClient.this.run.note(InOrderClient.this.name + " takes its locks again from the first: "
							+ held + " is no longer live");
				}
				return live;
			}

			@Override
			public void release(ClientHold held) {
				InOrderClient.this.run.checks().released(held);
				held.hold.releaseUnused(call.settled, Completion.of((left) -> {
				}, (error) -> {
					// Its lease ends it.
				}));
			}

		};
	}

	/**
	 * Count on a lock as soon as it is taken, renewed if its lock is.
	 */
	private ClientHold taken(Call call, Grant grant) {
		ClientHold held = this.run.checks().held(this.name, this.owner, grant, this.callPort.ranNanos(), null);
		// Released through the call's port on a failure: that release may get no reply.
		held.releaseMayTimeOut = true;
		call.taken.add(held);
		if (grant.spec().autoRenew()) {
			this.run.heldLocks(this.name, this.owner, List.of(held)).renewFromNow();
		}
		if (call.told) {
			// Taken after the call was told its end: released at once, by the driver.
			this.run.at(0, this.name + " checks that a lock taken too late was released", () -> {
				if (!held.hold.isReleased()) {
					this.run.checks()
						.violated(this.name + " took " + held + " after its call taken in order ended, and kept it");
				}
			});
		}
		return held;
	}

	private void granted(Call call, List<ClientHold> holds) {
		told(call, InOrderCalls.Outcome.GRANTED);
		this.run.multiHeld(false);
		this.run.waited(this.name, true, call.startedNanos, true);
		long now = this.run.nanos();
		for (ClientHold held : holds) {
			String lapsed = lapsed(held, now);
			if (lapsed != null) {
				this.run.checks()
					.violated(this.name + "'s call taken in order was granted, but " + held + " was no longer held"
							+ lapsed);
			}
		}
		this.work.multiLock(this.run.heldLocks(this.name, this.owner, holds), this.run.work(), this::next);
	}

	/**
	 * Return why a lock of a granted call is no longer held, or {@code null}: its handle
	 * must count it live (not lost, not released, its lease not over), and Redis hold it
	 * for the owner until then. The holder's own count ({@link ClientHold#live}, checked
	 * against Redis after every event) stops at a lease end that no confirmed reply moved
	 * in time; a renewal sent later and confirmed moves the handle's (never past what
	 * Redis keeps), which the grant is then checked against (a shared custom owner's
	 * other client kept the lock in Redis meanwhile: seeds 1172, 1329).
	 */
	private @Nullable String lapsed(ClientHold held, long now) {
		if (!held.hold.isLive(now)) {
			return " (lost " + held.hold.isLost() + ", released " + held.hold.isReleased() + ", ended "
					+ (now - held.hold.leaseEndNanos()) / 1e6 + " ms ago)";
		}
		if (held.live(now)) {
			return null;
		}
		String found = this.run.checks().writerViolation(held, held.hold.leaseEndNanos());
		return (found != null) ? " (its holder counted it over " + (now - held.endNanos()) / 1e6
				+ " ms ago, a renewal moved its lease end, but " + found + ")" : null;
	}

	private void failed(Call call, Throwable error) {
		InOrderCalls.Outcome outcome;
		if (call.cancelled) {
			outcome = InOrderCalls.Outcome.CANCELLED;
		}
		else if (error instanceof LockTimeoutException) {
			outcome = InOrderCalls.Outcome.TIMED_OUT;
		}
		else if (error instanceof LockAccessException && error.getMessage().contains("too slowly")) {
			outcome = InOrderCalls.Outcome.TOO_SLOW;
		}
		else if (error instanceof LockAccessException && error.getMessage().contains(InOrderPort.NO_REPLY)) {
			outcome = InOrderCalls.Outcome.NO_REPLY;
		}
		else {
			if (error instanceof LockSelfDeadlockException) {
				this.run.checks().violated(this.name + " was told it deadlocks itself: " + error.getMessage());
			}
			throw new IllegalStateException(this.name + ": " + error, error);
		}
		told(call, outcome);
		for (ClientHold held : call.taken) {
			if (!held.hold.isReleased()) {
				this.run.checks()
					.violated(this.name + "'s call taken in order ended without its locks, but kept " + held);
			}
		}
		if (outcome != InOrderCalls.Outcome.CANCELLED) {
			this.run.waited(this.name, true, call.startedNanos, false);
		}
		this.busy = false;
		if (this.cleanUpsInFlight > 0) {
			this.afterCleanUps = this::next;
			return;
		}
		next();
	}

	private void told(Call call, InOrderCalls.Outcome outcome) {
		if (this.call != call || call.told) {
			throw new IllegalStateException(this.name + " is told the end of a call that ended: " + outcome);
		}
		call.told = true;
		this.call = null;
		String late = this.run.inOrderCalls()
			.ended(this.name, outcome, call.startedNanos, call.waitNanos, this.run.nanos());
		if (late != null) {
			this.run.checks().violated(late);
		}
		if (outcome == InOrderCalls.Outcome.GRANTED) {
			this.busy = false;
		}
	}

	/**
	 * Cancel the call as an interrupt does ({@code CallerWait}): the driver's cancel
	 * releases what was taken, and the caller is told once the run settled.
	 */
	private void cancel(Call call) {
		if (this.call != call || call.cancelled) {
			return;
		}
		call.cancelled = true;
		if (call.acquiring.cancel()) {
			call.settled.cancelled(new LockInterruptedException(call.first().name(), new InterruptedException()));
		}
		else {
			// It ended first: its end is being told.
			call.cancelled = false;
		}
	}

	/**
	 * The call's bound passed: its caller must have been told its end.
	 */
	private void checkEnded(Call call) {
		if (!call.told) {
			this.run.checks()
				.violated(this.name + "'s call taken in order, started at " + MultiLockRun.at(call.startedNanos)
						+ " ms, did not end within its wait time plus one command timeout");
		}
	}

	private void next() {
		this.run.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start);
	}

	/**
	 * No lock waits past its call's wait time: an attempt sent after it asks to wait at
	 * most 1 ms, what the engine's {@code Deadline} asks for none left (a try asks 0).
	 * The engine sends one when a reply read past the wait time puts the waiter back in
	 * line, whose head then tries once more.
	 */
	@Override
	public boolean sending(String operation, ScriptCall script) {
		Call current = this.call;
		if (operation.equals("acquire") && current != null && !current.told
				&& this.run.nanos() - (current.startedNanos + current.waitNanos) > 0
				&& Long.parseLong(script.argv().get(3)) > 1) {
			this.run.checks()
				.violated(this.name + " sent an attempt that waits " + script.argv().get(3) + " ms more, "
						+ (this.run.nanos() - current.startedNanos) / 1e6
						+ " ms into a call taken in order whose wait time is " + current.waitNanos / 1e6 + " ms");
		}
		if (operation.equals("release") || operation.equals("withdraw")) {
			this.cleanUpsInFlight++;
		}
		return true;
	}

	@Override
	public void ended(String operation, @Nullable Object reply, long ranNanos) {
		if ((operation.equals("release") || operation.equals("withdraw")) && --this.cleanUpsInFlight == 0
				&& this.afterCleanUps != null) {
			Runnable then = this.afterCleanUps;
			this.afterCleanUps = null;
			this.run.at(0, this.name + " goes on", then);
		}
	}

	/**
	 * One call: its locks, its start and wait time, the locks it took.
	 */
	private static final class Call {

		// The locks as asked, by lock key, with the whole wait time.
		final Map<String, LockSpec> specs;

		final long startedNanos;

		final long waitNanos;

		final List<ClientHold> taken = new ArrayList<>();

		SettledRun<List<ClientHold>> settled;

		InOrderAcquisition<ClientHold> acquiring;

		boolean told;

		boolean cancelled;

		// How many times the locks were taken again from the first.
		int restarts;

		Call(List<LockSpec> specs, long startedNanos, long waitNanos) {
			this.specs = specs.stream()
				.collect(Collectors.toMap(LockSpec::lockKey, Function.identity(), (a, b) -> a,
						java.util.LinkedHashMap::new));
			this.startedNanos = startedNanos;
			this.waitNanos = waitNanos;
		}

		LockSpec first() {
			return this.specs.values().iterator().next();
		}

	}

}
