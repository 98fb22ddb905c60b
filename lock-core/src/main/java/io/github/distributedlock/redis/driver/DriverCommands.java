package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
import io.github.distributedlock.redis.script.ExclusiveKind;
import io.github.distributedlock.redis.script.FairKind;
import io.github.distributedlock.redis.script.LockKind;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.script.ScriptReplies;
import org.jspecify.annotations.Nullable;

/**
 * The scripts a driver runs while it acquires, built by the lock's {@link LockKind} and
 * run on a {@link LockPort}: the same scripts, with the same arguments, whoever gives the
 * port. Thread-safe.
 */
public final class DriverCommands {

	private static final Consumer<Object> IGNORED = (reply) -> {
	};

	private final LockPort port;

	private final String fenceIdleMillis;

	private final boolean handOff;

	/**
	 * @param fenceIdleMillis how long a lock's fencing counter outlives its last hold
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 */
	public DriverCommands(LockPort port, long fenceIdleMillis, boolean handOff) {
		this.port = port;
		this.fenceIdleMillis = Long.toString(fenceIdleMillis);
		this.handOff = handOff;
	}

	public LockPort port() {
		return this.port;
	}

	/**
	 * Run the acquire script of the spec's kind once, for the given attempt.
	 */
	void acquire(LockSpec spec, String owner, Acquisition.Attempt attempt, Consumer<AcquireResult> replied,
			Consumer<Throwable> failed) {
		LockKind.Attempt call = new LockKind.Attempt(owner, attempt.hold(), attempt.remainingWaitMillis(),
				attempt.mayHaveIntent(), attempt.holdsIt(), attempt.request());
		run(spec.name(), "acquire", spec.kind().acquire(spec, call, this.fenceIdleMillis),
				(reply) -> ScriptReplies.acquireResult(spec, (List<?>) reply), replied, failed);
	}

	/**
	 * Run the multi-lock acquire script once.
	 */
	void acquireAll(List<LockSpec> specs, String owner, String hold, boolean reentrant,
			@Nullable HandOffRequest request, Consumer<MultiAcquireResult> replied, Consumer<Throwable> failed) {
		LockName first = specs.get(0).name();
		run(first, "acquire", ExclusiveKind.acquireAll(specs, owner, hold, reentrant, request, this.fenceIdleMillis),
				(reply) -> ScriptReplies.multiAcquireResult(first, specs.size(), (List<?>) reply), replied, failed);
	}

	/**
	 * Release a hold nobody will use, without waiting: a release that fails leaves it to
	 * end with its lease.
	 */
	void releaseUnused(Grant grant) {
		LockSpec spec = grant.spec();
		quietly(spec.name(), "release",
				spec.kind().release(spec, grant.owner(), grant.token(), grant.hold(), this.handOff, 0));
	}

	/**
	 * Withdraw a request after its waiter gave up; a reservation for it passes on, and a
	 * hold is never touched.
	 */
	void withdraw(LockSpec spec, HandOffRequest request) {
		quietly(spec.name(), "withdraw", ExclusiveKind.withdraw(spec, request, this.handOff));
	}

	/**
	 * Drop a writer's intent, for a writer that stops waiting without the lock.
	 */
	void dropIntent(LockSpec spec, String owner) {
		quietly(spec.name(), "drop-intent", ExclusiveKind.dropIntent(spec, owner));
	}

	/**
	 * Leave a fair lock's queue, for a waiter that gave up.
	 */
	void leaveQueue(LockSpec spec, String owner) {
		quietly(spec.name(), "leave queue", FairKind.leave(spec, owner));
	}

	private void quietly(LockName name, String operation, ScriptCall call) {
		run(name, operation, call, Function.identity(), IGNORED, (error) -> {
			// Nobody waits for it: what it would undo lapses on its own.
		});
	}

	private <T> void run(LockName name, String operation, ScriptCall call, Function<Object, T> parse,
			Consumer<? super T> replied, Consumer<Throwable> failed) {
		this.port.run(name, operation, call, new LockPort.Reply() {

			@Override
			public void replied(Object reply) {
				T parsed;
				try {
					parsed = parse.apply(reply);
				}
				catch (RuntimeException ex) {
					// A reply that does not parse is a failure like any.
					failed.accept(ex);
					return;
				}
				replied.accept(parsed);
			}

			@Override
			public void failed(Throwable error) {
				failed.accept(error);
			}

		});
	}

}
