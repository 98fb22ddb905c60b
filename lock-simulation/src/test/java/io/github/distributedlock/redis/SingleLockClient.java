package io.github.distributedlock.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockOwners;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitLine;
import io.github.distributedlock.redis.core.Waiting;
import io.github.distributedlock.redis.script.ExclusiveKind;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;

import org.jspecify.annotations.Nullable;

/**
 * A client that takes one of the locks at a time, through the engine's own
 * {@link Acquisition} and {@link Waiting}, as {@link LockSimulation}'s clients do: each
 * lock has a local line of its own in the client's JVM.
 */
final class SingleLockClient implements LocalLine.Waiter {

	private final String name;

	private final String owner;

	private final Map<String, LocalLine> lines = new HashMap<>();

	private final MultiLockRun run;

	private int left;

	private @Nullable Acquisition acquisition;

	private @Nullable Waiting waiting;

	private @Nullable LocalLine line;

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
		this.work = new HoldWork(run, name, owner);
	}

	@Override
	public String name() {
		return this.name;
	}

	boolean reader() {
		return this.reader;
	}

	boolean done() {
		return this.left <= 0 && this.acquisition == null;
	}

	void start() {
		if (this.left-- <= 0) {
			return;
		}
		String key = this.run.keys().get(this.run.random().nextInt(this.run.keys().size()));
		LockSpec spec = this.run.spec(key, this.reader);
		this.run.note(this.name + " takes " + key);
		LocalLine line = this.lines.computeIfAbsent(key,
				(k) -> new LocalLine(this.name + "/" + k, new WaitLine(false, this.reader),
						this.run.subscribe(this.name + "/" + k, spec, (message) -> heard(k, message)), true));
		this.line = line;
		// A custom owner always counts as holding the lock (no take-over), as in the
		// engine.
		Acquisition acquisition = new Acquisition(spec, this.owner, LockOwners.isCustom(this.owner), this.run::nanos);
		this.acquisition = acquisition;
		this.waiting = new Waiting(acquisition, true);
		this.startedNanos = this.run.nanos();
		act(this.waiting.begin(line.hot(this.startedNanos)));
	}

	private void heard(String key, String message) {
		LocalLine line = this.lines.get(key);
		MultiLockRun.hear(line.line(), message, this.run.nanos());
		Waiting current = this.waiting;
		if (line.head() == this && current != null) {
			act(current.signalled());
		}
	}

	private void act(Waiting.Next next) {
		Acquisition acquisition = current();
		Waiting waiting = this.waiting;
		LocalLine line = this.line;
		if (waiting == null || line == null) {
			throw new IllegalStateException(this.name + " is not acquiring");
		}
		if (next instanceof Waiting.Send send) {
			attempt(acquisition, send.attempt());
		}
		else if (next == Waiting.Next.JOIN_LINE) {
			act(waiting.joined(line.line(), line.join(this), true));
		}
		else if (next instanceof Waiting.Sleep sleep) {
			this.run.at(sleep.nanos(), this.name + " wakes (timer)", () -> {
				if (this.acquisition == acquisition) {
					act(waiting.woken(sleep.ticket()));
				}
			});
		}
		else if (next instanceof Waiting.AwaitTurn) {
			throw new IllegalStateException(this.name + " waits for its turn in a line of its own");
		}
		else if (next instanceof Waiting.GiveUp giveUp && giveUp.release() != null) {
			Grant late = giveUp.release();
			ScriptCall release = late.spec()
				.kind()
				.release(late.spec(), this.owner, late.token(), late.hold(), true, 0);
			this.run.send(this.name, release, "release of a late grant", (released) -> end(false));
		}
		else if (next instanceof Waiting.GiveUp) {
			end(false);
		}
		else if (next instanceof Waiting.Fail failed) {
			throw new IllegalStateException(this.name + ": " + failed.error());
		}
	}

	private void attempt(Acquisition acquisition, Acquisition.Attempt attempt) {
		LockSpec spec = acquisition.spec();
		ScriptCall call = spec.kind()
			.acquire(spec, new LockKind.Attempt(this.owner, attempt.hold(), attempt.remainingWaitMillis(),
					attempt.mayHaveIntent(), attempt.holdsIt(), attempt.request()), MultiLockRun.FENCE_IDLE_MS);
		this.run.send(this.name, call, "acquire " + spec.name().key(), () -> {
		}, (reply, ranNanos) -> {
			if (this.acquisition != acquisition) {
				return;
			}
			Waiting waiting = this.waiting;
			if (waiting == null) {
				return;
			}
			AcquireResult result = ScriptReplies.acquireResult(spec, (List<?>) reply);
			Waiting.Next next = waiting.replied(attempt, result);
			if (next instanceof Waiting.Hold hold) {
				hold(hold.grant(), ranNanos);
			}
			else {
				act(next);
			}
		});
	}

	private void hold(Grant grant, long ranNanos) {
		end(true);
		ClientHold held = this.run.checks().held(this.name, this.owner, grant, ranNanos, null);
		this.work.singleLock(new HeldLocks(this.run, this.name, this.owner, List.of(held)), this.run.work(),
				this.reader, this::next);
	}

	/**
	 * End the acquisition: with the lock, or without it (its request withdrawn, as the
	 * engine's drivers do).
	 */
	private void end(boolean won) {
		Waiting ending = this.waiting;
		LocalLine line = this.line;
		if (ending == null || line == null) {
			throw new IllegalStateException(this.name + " is not acquiring");
		}
		LockSpec spec = current().spec();
		this.acquisition = null;
		this.waiting = null;
		Acquisition.Ending ended = ending.end(won);
		this.run.waited(this.name, false, this.startedNanos, won);
		line.leave(this, this.run.nanos());
		if (won) {
			return;
		}
		HandOffRequest withdraw = ended.withdraw();
		if (withdraw != null) {
			ScriptCall call = ExclusiveKind.withdraw(spec, withdraw, true);
			this.run.redisAt(this.run.network(), this.name + " withdraws", () -> this.run.eval(call));
		}
		if (ended.dropIntent()) {
			ScriptCall call = ExclusiveKind.dropIntent(spec, this.owner);
			this.run.redisAt(this.run.network(), this.name + " drops its writer intent", () -> this.run.eval(call));
		}
		next();
	}

	private void next() {
		this.run.at(this.run.random().between(0, 20 * LockSimulation.MS), this.name + " next", this::start);
	}

	private Acquisition current() {
		Acquisition current = this.acquisition;
		if (current == null) {
			throw new IllegalStateException(this.name + " is not acquiring");
		}
		return current;
	}

}
