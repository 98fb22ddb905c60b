package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.distributedlock.LockSelfDeadlockException;
import io.github.distributedlock.redis.blocking.LockCommands;
import io.github.distributedlock.redis.blocking.MultiLockHandle;
import io.github.distributedlock.redis.blocking.MultiWaitLoop;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
import io.github.distributedlock.redis.core.MultiAcquisition;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.redis.script.ExclusiveKind;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;
import org.jspecify.annotations.Nullable;

/**
 * A simulated client that takes two or three locks at once, all or nothing: each
 * acquisition runs the engine's own {@link MultiAcquisition} and {@code acquire-all.lua}
 * (built by {@link ExclusiveKind#acquireAll}, read by
 * {@link LockCommands#multiAcquireResult}) as {@link MultiWaitLoop} drives it, and
 * releases what it won as {@link MultiLockHandle} does.
 * <p>
 * The loop, step for step: read the current line's signal count, send the attempt;
 * {@code Granted} in time holds every lock; a late grant is sent again at once with the
 * same hold id while {@link MultiAcquisition#retriesLateGrant()}, else released (each
 * release's reply read) and the wait ends; {@code Blocked} on a lock whose line it is not
 * in leaves the old line, joins that lock's line, expects its request there, and tries
 * again once subscribed (the model's subscriptions are always there); blocked again on
 * the same line, it waits for a signal since the count it read, at most
 * {@link MultiAcquisition#sleepNanos()}; {@code Over} ends the wait. A wait that ends
 * without the locks leaves its line and withdraws its request from every line
 * {@link MultiAcquisition#filed()} names, one after the other, as the blocking driver
 * does.
 */
final class MultiClient {

	private final MultiLockRun run;

	private final String name;

	private final String owner;

	// Its wait line of each lock, subscribed when first joined: they linger.
	private final Map<String, WaitLine> lines = new HashMap<>();

	private int left;

	private @Nullable MultiAcquisition acquisition;

	// The line it waits on: of the lock that blocked its last attempt.
	private @Nullable LockSpec joined;

	// The line's signal count read before the last attempt.
	private long seen;

	// The sleep it is in, if any: a timer or a signal ends it.
	private long sleepTicket;

	private boolean asleep;

	private long startedNanos;

	// An attempt was sent and its reply not read yet; what a cancel or an interrupt
	// asked of the acquisition.
	private boolean inFlight;

	private Cancellations.Pending pending = Cancellations.Pending.NONE;

	// What it does with the locks it holds.
	private final HoldWork work;

	MultiClient(MultiLockRun run, String name, String owner, int acquisitions) {
		this.run = run;
		this.name = name;
		this.owner = owner;
		this.left = acquisitions;
		this.work = new HoldWork(run, name, owner);
	}

	boolean done() {
		return this.left <= 0 && this.acquisition == null;
	}

	void start() {
		if (this.left-- <= 0) {
			return;
		}
		// Two or three of the names, in an order of the caller's, which the engine puts
		// in its global order (by key, as MultiLocking does) before it takes them.
		List<String> keys = new ArrayList<>(this.run.keys());
		int count = 2 + this.run.random().nextInt(2);
		List<String> asked = new ArrayList<>();
		while (asked.size() < count) {
			asked.add(keys.remove(this.run.random().nextInt(keys.size())));
		}
		long minimumHold = this.work.minimumHold();
		TreeMap<String, LockSpec> ordered = new TreeMap<>();
		for (String key : asked) {
			LockSpec spec = this.run.spec(key, minimumHold);
			ordered.putIfAbsent(spec.lockKey(), spec);
		}
		List<LockSpec> specs = new ArrayList<>(ordered.values());
		this.run.note(this.name + " takes " + asked + " at once"
				+ ((minimumHold > 0) ? ", each for at least " + minimumHold + " ms" : ""));
		LockSpec first = specs.get(0);
		MultiAcquisition acquisition = new MultiAcquisition(specs, this.owner, first.waitNanos(), first.reentrant(),
				true, this.run::nanos);
		this.acquisition = acquisition;
		this.joined = null;
		this.seen = 0;
		this.asleep = false;
		this.pending = Cancellations.Pending.NONE;
		this.startedNanos = this.run.nanos();
		Cancellations.Stop stop = this.run.cancellations().draw();
		if (stop != null && this.run.draws(LockSimulation.Fault.CANCEL)) {
			this.run.at(stop.delayNanos(), this.name + (stop.interrupt() ? " is interrupted" : " is cancelled"),
					() -> stop(acquisition, stop.interrupt()));
		}
		attempt();
	}

	private void attempt() {
		MultiAcquisition acquisition = current();
		this.asleep = false;
		LockSpec joined = this.joined;
		if (joined != null) {
			this.seen = line(joined).signals();
		}
		long sentNanos = acquisition.next();
		this.inFlight = true;
		ScriptCall call = ExclusiveKind.acquireAll(acquisition.specs(), acquisition.owner(), acquisition.hold(),
				acquisition.reentrant(), acquisition.request(), MultiLockRun.FENCE_IDLE_MS);
		this.run.send(this.name, call, "acquire-all " + keys(acquisition.specs()), () -> {
		}, (reply, ranNanos) -> {
			if (this.acquisition != acquisition) {
				return;
			}
			this.inFlight = false;
			MultiAcquireResult result = ScriptReplies.multiAcquireResult(acquisition.specs().get(0).name(),
					acquisition.specs().size(), (List<?>) reply);
			replied(acquisition, acquisition.replied(sentNanos, result), ranNanos);
		});
	}

	private void replied(MultiAcquisition acquisition, MultiAcquisition.Outcome outcome, long ranNanos) {
		if (this.pending == Cancellations.Pending.CANCELLED && !(outcome instanceof MultiAcquisition.Failed)) {
			abandon(outcome);
			return;
		}
		if (outcome instanceof MultiAcquisition.Granted granted) {
			this.run.multiHeld(granted.late());
			if (!granted.late()) {
				hold(granted.grants(), ranNanos);
			}
			else if (acquisition.retriesLateGrant()) {
				// Granted too late to use: again at once, with the same hold id.
				attempt();
			}
			else {
				List<ScriptCall> releases = granted.grants().stream().map(this::release).toList();
				this.run.sendInTurn(this.name, releases, "release of a late grant", () -> endWithoutTheLocks(false));
			}
		}
		else if (outcome instanceof MultiAcquisition.Failed failed) {
			// Nobody holds a lock it asks for but other owners: no self-deadlock.
			if (failed.error() instanceof LockSelfDeadlockException) {
				this.run.checks().violated(this.name + " was told it deadlocks itself: " + failed.error().getMessage());
			}
			throw new IllegalStateException(this.name + ": " + failed.error());
		}
		else if (outcome instanceof MultiAcquisition.Blocked blocked) {
			waitFor(acquisition, blocked.spec());
		}
		else {
			endWithoutTheLocks(false);
		}
	}

	/**
	 * Wait on the line of the lock that blocked the attempt: join it and try again at
	 * once if it is another lock's; else sleep until a signal since the last attempt, at
	 * most {@link MultiAcquisition#sleepNanos()}.
	 */
	private void waitFor(MultiAcquisition acquisition, LockSpec spec) {
		LockSpec joined = this.joined;
		if (joined == null || !joined.queueId().equals(spec.queueId())) {
			if (joined != null) {
				leave(acquisition, joined);
			}
			// The blocking driver's wait for a new subscription throws at once for an
			// interrupted thread; one its JVM holds already is no wait.
			if (!this.lines.containsKey(spec.lockKey()) && interrupted()) {
				return;
			}
			this.joined = spec;
			HandOffRequest request = acquisition.request();
			if (request != null) {
				line(spec).expect(request);
			}
			attempt();
			return;
		}
		if (line(spec).signals() != this.seen) {
			attempt();
			return;
		}
		// So does its wait for a signal.
		if (interrupted()) {
			return;
		}
		this.asleep = true;
		long ticket = ++this.sleepTicket;
		this.run.at(acquisition.sleepNanos(), this.name + " wakes (timer)", () -> {
			if (this.acquisition == acquisition && this.asleep && this.sleepTicket == ticket) {
				attempt();
			}
		});
	}

	/**
	 * End the wait if the thread was interrupted while its attempt was in flight.
	 * @return whether it did
	 */
	private boolean interrupted() {
		if (this.pending != Cancellations.Pending.INTERRUPTED) {
			return false;
		}
		this.run.cancellations().interrupted();
		endWithoutTheLocks(true);
		return true;
	}

	/**
	 * Stop an acquisition as the engine's drivers do: asleep, it ends at once; with an
	 * attempt in flight, a cancel leaves the end to the reply
	 * ({@code AllLocksAcquisition}), and an interrupt to the next wait
	 * ({@link MultiWaitLoop}).
	 */
	private void stop(MultiAcquisition stopped, boolean interrupt) {
		if (this.acquisition != stopped || this.pending != Cancellations.Pending.NONE) {
			return;
		}
		if (this.asleep) {
			if (interrupt) {
				this.run.cancellations().interrupted();
			}
			else {
				this.run.cancellations().cancelledAsleep();
			}
			endWithoutTheLocks(true);
		}
		else if (this.inFlight) {
			this.pending = interrupt ? Cancellations.Pending.INTERRUPTED : Cancellations.Pending.CANCELLED;
		}
	}

	/**
	 * End an acquisition cancelled while its attempt was in flight, with the reply: the
	 * holds a grant brings, in time or too late, are released (each release's reply read
	 * before the client goes on).
	 */
	private void abandon(MultiAcquisition.Outcome outcome) {
		List<Grant> grants = (outcome instanceof MultiAcquisition.Granted granted) ? granted.grants() : List.of();
		this.run.cancellations().cancelledInFlight(!grants.isEmpty());
		List<ScriptCall> releases = (this.run.clientBug() != LockSimulation.ClientBug.CANCEL_KEEPS_GRANT)
				? grants.stream().map(this::release).toList() : List.of();
		this.run.sendInTurn(this.name, releases, "release of a cancelled grant", () -> endWithoutTheLocks(true));
	}

	/**
	 * A message reached one of its lines: a sleep on that line ends if the line counted a
	 * signal since the last attempt.
	 */
	private void heard(String key, String message) {
		WaitLine line = this.lines.get(key);
		MultiLockRun.hear(line, message, this.run.nanos());
		LockSpec joined = this.joined;
		if (this.acquisition != null && this.asleep && joined != null && joined.lockKey().equals(key)
				&& line.signals() != this.seen) {
			attempt();
		}
	}

	private void hold(List<Grant> grants, long ranNanos) {
		MultiAcquisition acquisition = current();
		this.acquisition = null;
		LockSpec joined = this.joined;
		if (joined != null) {
			leave(acquisition, joined);
		}
		this.run.waited(this.name, true, this.startedNanos, true);
		List<ClientHold> holds = new ArrayList<>();
		for (Grant grant : grants) {
			holds.add(this.run.checks().held(this.name, this.owner, grant, ranNanos, null));
		}
		// Released in reverse order, each once the release before it replied, as
		// MultiLockHandle.releaseAll closes them.
		this.work.multiLock(new HeldLocks(this.run, this.name, this.owner, holds), this.run.work(), () -> this.run
			.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start));
	}

	private ScriptCall release(Grant grant) {
		return grant.spec().kind().release(grant.spec(), this.owner, grant.token(), grant.hold(), true, 0);
	}

	/**
	 * End the wait without the locks (it gave up, or was stopped): leave the line, and
	 * withdraw the request from every line it was filed in, each withdrawal's reply read
	 * before the next.
	 */
	private void endWithoutTheLocks(boolean stopped) {
		MultiAcquisition acquisition = current();
		this.acquisition = null;
		LockSpec joined = this.joined;
		if (joined != null) {
			leave(acquisition, joined);
		}
		if (!stopped) {
			// A stopped wait gives nothing up, and is not measured.
			this.run.waited(this.name, true, this.startedNanos, false);
		}
		HandOffRequest request = acquisition.request();
		List<ScriptCall> withdrawals = new ArrayList<>();
		LockSimulation.ClientBug bug = this.run.clientBug();
		boolean skips = bug == LockSimulation.ClientBug.MULTI_SKIPS_WITHDRAWAL
				|| (stopped && bug == LockSimulation.ClientBug.CANCEL_SKIPS_WITHDRAWAL);
		if (request != null && !skips) {
			for (LockSpec spec : acquisition.filed()) {
				withdrawals.add(ExclusiveKind.withdraw(spec, request, true));
			}
		}
		this.run.sendInTurn(this.name, withdrawals, "withdrawal", () -> this.run
			.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start));
	}

	private void leave(MultiAcquisition acquisition, LockSpec spec) {
		HandOffRequest request = acquisition.request();
		if (request != null) {
			line(spec).forget(request);
		}
		this.joined = null;
		this.asleep = false;
	}

	/**
	 * Return its line of a lock, subscribing it the first time.
	 */
	private WaitLine line(LockSpec spec) {
		return this.lines.computeIfAbsent(spec.lockKey(), (key) -> {
			WaitLine line = new WaitLine(false, false);
			this.run.subscribe(this.name + "/" + spec.name().key(), spec, (message) -> heard(key, message));
			return line;
		});
	}

	private static List<String> keys(List<LockSpec> specs) {
		return specs.stream().map((spec) -> spec.name().key()).toList();
	}

	private MultiAcquisition current() {
		MultiAcquisition current = this.acquisition;
		if (current == null) {
			throw new IllegalStateException(this.name + " is not acquiring");
		}
		return current;
	}

}
