package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.AcquireResult;
import io.github.distributedlock.redis.core.Acquisition;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HandOffRequest;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.MultiAcquireResult;
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

	private static final Consumer<Boolean> IGNORED = (ran) -> {
	};

	/**
	 * How soon the undo of an attempt whose reply never came is tried again.
	 */
	static final long UNDO_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final LockPort port;

	private final long fenceIdleMillis;

	private final boolean handOff;

	private final AttemptWatch watch;

	/**
	 * @param fenceIdleMillis how long a lock's fencing counter outlives its last hold
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 * @param watch told of every attempt, before it is sent and when it ends
	 */
	public DriverCommands(LockPort port, long fenceIdleMillis, boolean handOff, AttemptWatch watch) {
		this.port = port;
		this.fenceIdleMillis = fenceIdleMillis;
		this.handOff = handOff;
		this.watch = watch;
	}

	public LockPort port() {
		return this.port;
	}

	/**
	 * Return the same commands on another port: one run's own.
	 */
	public DriverCommands on(LockPort other) {
		return new DriverCommands(other, this.fenceIdleMillis, this.handOff, this.watch);
	}

	/**
	 * Run the acquire script of the spec's kind once, for the given attempt; one whose
	 * reply never came is {@link #undo undone} before {@code failed} hears of it.
	 */
	void acquire(LockSpec spec, Acquisition.Attempt attempt, Consumer<AcquireResult> replied,
			Consumer<Throwable> failed) {
		this.watch.sending(spec, attempt);
		run(spec.name(), "acquire", spec.kind().acquire(spec, attempt, this.fenceIdleMillis),
				(reply) -> ScriptReplies.acquireResult(spec, (List<?>) reply), (result) -> {
					this.watch.ended(spec, attempt, result);
					replied.accept(result);
				}, (error) -> {
					this.watch.ended(spec, attempt, null);
					if (mayHaveRun(error)) {
						// It may have run: release what it took once Redis answers,
						// before the end withdraws what it filed (an undo files nothing).
						undo(spec, attempt.owner(), attempt.hold());
					}
					failed.accept(error);
				});
	}

	/**
	 * Undo a multi-lock attempt whose reply never came, as {@link #undo} does a single
	 * lock's: what the same hold id took is released lock by lock.
	 */
	void undoAll(List<LockSpec> specs, String owner, String hold, Throwable error) {
		if (mayHaveRun(error)) {
			for (LockSpec spec : specs) {
				undo(spec, owner, hold);
			}
		}
	}

	/**
	 * Return whether a command that failed may have run in Redis, or may still: unless
	 * Redis refused it with an error reply (out of memory, no permission, a script
	 * error), which the client reports as such.
	 */
	static boolean mayHaveRun(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			String type = cause.getClass().getSimpleName();
			if (type.equals("RedisCommandExecutionException") || type.equals("JedisDataException")) {
				return false;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return true;
	}

	/**
	 * Undo an attempt whose reply never came: it may have made its owner a holder that
	 * nobody would release. The hold it may have taken is released by its hold id
	 * ({@link LockKind#releaseUnanswered}), which never takes the lock nor lengthens a
	 * lease, until Redis answers ({@link #sendUntilAnswered}). A lost attempt that runs
	 * after its undo holds the lock for nobody until its lease ends or the owner's next
	 * acquisition takes it over. See docs/design/driver.md.
	 */
	private void undo(LockSpec spec, String owner, String hold) {
		sendUntilAnswered(this.port, spec.name(), "release",
				spec.kind().releaseUnanswered(spec, owner, hold, this.handOff));
	}

	/**
	 * Send a script that ends a hold (a release, an undo) until Redis answers it: again
	 * {@link #UNDO_RETRY_NANOS} after each failure without a reply, for as long as the
	 * port runs. One sent while Redis does not answer may never run (a command cancelled
	 * before it was written is dropped), and its hold would then stay for as long as
	 * Redis keeps it: its lease, or longer where other holds of its owner keep the lock's
	 * key alive. The script must be safe to run twice, and at any later time. An error
	 * reply ({@link #mayHaveRun}) ends the retries: Redis refused the script, and would
	 * refuse it again (out of memory, no permission), so the hold lasts as if it had
	 * never been sent.
	 */
	static void sendUntilAnswered(LockPort port, LockName name, String operation, ScriptCall call) {
		port.run(name, operation, call, Completion.of((reply) -> {
		}, (error) -> {
			if (mayHaveRun(error)) {
				port.schedule(() -> sendUntilAnswered(port, name, operation, call), UNDO_RETRY_NANOS);
			}
		}));
	}

	/**
	 * Run the multi-lock acquire script once.
	 */
	void acquireAll(List<LockSpec> specs, String owner, String hold, boolean reentrant,
			@Nullable HandOffRequest request, Consumer<MultiAcquireResult> replied, Consumer<Throwable> failed) {
		LockName first = specs.get(0).name();
		run(first, "acquire", LockKind.acquireAll(specs, owner, hold, reentrant, request, this.fenceIdleMillis),
				(reply) -> ScriptReplies.multiAcquireResult(first, specs.size(), (List<?>) reply), replied, failed);
	}

	/**
	 * Release a hold nobody will use, without waiting; sent again until Redis answers.
	 */
	public void releaseUnused(Grant grant) {
		LockSpec spec = grant.spec();
		ScriptCall release = spec.kind().release(spec, grant.owner(), grant.token(), grant.hold(), this.handOff, 0);
		sendUntilAnswered(this.port, spec.name(), "release", release);
	}

	/**
	 * Withdraw a request after its waiter gave up; a reservation for it passes on, and a
	 * hold is never touched.
	 */
	void withdraw(LockSpec spec, HandOffRequest request) {
		quietly(spec.name(), "withdraw", LockKind.withdraw(spec, request, this.handOff));
	}

	/**
	 * Drop a writer's intent, for a writer that stops waiting without the lock.
	 */
	void dropIntent(LockSpec spec, String owner) {
		quietly(spec.name(), "drop-intent", LockKind.dropIntent(spec, owner));
	}

	void leaveQueue(LockSpec spec, String owner, String hold) {
		quietly(spec.name(), "leave queue", LockKind.leaveQueue(spec, owner, hold));
	}

	/**
	 * Told of each attempt, before it is sent and when it ends, so that an owner that
	 * re-enters is counted as a holder until the reply.
	 */
	public interface AttemptWatch {

		default void sending(LockSpec spec, Acquisition.Attempt attempt) {
		}

		/**
		 * @param result the reply, or {@code null} if none came (it may still run)
		 */
		default void ended(LockSpec spec, Acquisition.Attempt attempt, @Nullable AcquireResult result) {
		}

	}

	private void quietly(LockName name, String operation, ScriptCall call) {
		run(name, operation, call, (reply) -> Boolean.TRUE, IGNORED, (error) -> {
			// Nobody waits for it: what it would undo lapses on its own.
		});
	}

	private <T> void run(LockName name, String operation, ScriptCall call, Function<@Nullable Object, T> parse,
			Consumer<? super T> replied, Consumer<Throwable> failed) {
		this.port.run(name, operation, call, Completion.of((reply) -> {
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
		}, failed));
	}

}
