package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.Deadline;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.ReplicaCount;
import org.jspecify.annotations.Nullable;

/**
 * Makes sure the holds an acquisition just won reached enough replicas, so that a
 * failover now would not hand a lock to someone else; otherwise releases them and fails
 * the acquisition. Both templates and the simulation run it: it counts the replicas
 * through a {@link ReplicaCount}, releases through the {@link LockPort}, and ends each
 * check at the call's bound on the port's timer. Thread-safe.
 */
public final class ReplicaWait {

	private final LockPort port;

	private final ReplicaCount count;

	private final boolean handOff;

	private final int replicas;

	private final long timeoutMillis;

	private final HoldRegistry registry;

	/**
	 * @param count counts the replicas that have a hold, waiting at most
	 * {@code timeoutMillis} for them
	 * @param handOff whether a release reserves the lock for the oldest waiting request
	 * @param replicas how many replicas must acknowledge each hold
	 * @param timeoutMillis how long the count waits, which a refusal's message tells
	 * @param registry the template's holds, told of the lease a count may write again
	 */
	public ReplicaWait(LockPort port, ReplicaCount count, boolean handOff, int replicas, long timeoutMillis,
			HoldRegistry registry) {
		this.port = port;
		this.count = count;
		this.handOff = handOff;
		this.replicas = replicas;
		this.timeoutMillis = timeoutMillis;
		this.registry = registry;
	}

	/**
	 * Check holds just won, one after another: a multi-lock's all or none.
	 * @param call the bound of the call: its wait time plus one command timeout
	 * @return completed with the holds once enough replicas acknowledged every one (a
	 * caller that drops them must release them). Failed with a
	 * {@link LockAccessException}: without a cause once a refusal's releases were
	 * answered (too few replicas acknowledged a hold, the server no longer had it, or a
	 * hold's lease ended, counted from when its acquire script was sent, before it was
	 * confirmed); caused by the Redis failure if a count failed (it may have lost its
	 * reply); caused by a {@link TimeoutException} at the call's bound. Unless it
	 * completes, every hold is released: also once confirmed, if the caller cancelled the
	 * returned future or the bound came first.
	 */
	public CompletableFuture<List<Grant>> confirm(List<Grant> holds, Deadline call) {
		return confirm(holds, call, (hold) -> this.port.nanoTime() - hold.sentNanos() >= TimeUnit.MILLISECONDS
			.toNanos(hold.spec().leaseMillis()));
	}

	/**
	 * Check holds taken and registered before (a multi-lock taken lock by lock, renewed
	 * meanwhile), as {@link #confirm(List, Deadline)} does fresh ones.
	 * @param lapsed whether a hold's lease has ended, as its handle counts it
	 */
	public CompletableFuture<List<Grant>> confirm(List<Grant> holds, Deadline call, Predicate<Grant> lapsed) {
		CompletableFuture<List<Grant>> confirmed = new CompletableFuture<>();
		long bound = call.remainingNanos();
		LockPort.Cancellable timer = (bound == Long.MAX_VALUE) ? () -> {
		} : this.port.schedule(() -> confirmed.completeExceptionally(gaveUp(holds)), Math.max(0, bound));
		counted(holds, 0).whenComplete((acked, error) -> {
			try {
				ended(holds, confirmed, timer, acked, error, lapsed);
			}
			catch (RuntimeException | Error ex) {
				// Not left unanswered: the caller hears of it, and each hold is released.
				confirmed.completeExceptionally(ex);
				holds.forEach(this::releaseQuietly);
			}
		});
		return confirmed;
	}

	/**
	 * The count ended: confirm the holds, or release them and tell why.
	 */
	private void ended(List<Grant> holds, CompletableFuture<List<Grant>> confirmed, LockPort.Cancellable timer,
			@Nullable Long acked, @Nullable Throwable error, Predicate<Grant> lapsed) {
		Grant late = (error == null) ? holds.stream().filter(lapsed).findFirst().orElse(null) : null;
		if (error == null && acked != null && acked >= this.replicas && late == null) {
			timer.cancel();
			if (!confirmed.complete(holds)) {
				// Nobody takes them: the bound came first, or the caller left.
				holds.forEach(this::release);
			}
			return;
		}
		List<CompletableFuture<Boolean>> releases = holds.stream().map(this::release).toList();
		LockName name = holds.get(0).spec().name();
		if (error != null || acked == null) {
			timer.cancel();
			Throwable cause = (error != null) ? unwrap(error) : null;
			// A cancel is the caller's to make: one from the count is a failure like any.
			confirmed
				.completeExceptionally((cause instanceof RuntimeException && !(cause instanceof CancellationException))
						? cause : new LockAccessException(name, "the replica check failed", cause));
			return;
		}
		// Told once released, so that the caller who hears of it finds the locks free.
		CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> {
			timer.cancel();
			boolean released = releases.stream().allMatch(CompletableFuture::join);
			confirmed.completeExceptionally((late != null) ? late(late, released) : refusal(name, acked, released));
		});
	}

	/**
	 * Count the replicas of the holds from the {@code next} on, one after another.
	 * @return the first count short of the replicas asked for, or that number once every
	 * hold had them
	 */
	private CompletableFuture<Long> counted(List<Grant> holds, int next) {
		if (next == holds.size()) {
			return CompletableFuture.completedFuture((long) this.replicas);
		}
		return count(holds.get(next)).thenCompose((acked) -> (acked >= this.replicas) ? counted(holds, next + 1)
				: CompletableFuture.completedFuture(acked));
	}

	private CompletableFuture<Long> count(Grant hold) {
		String owner = hold.owner();
		String lockKey = hold.spec().lockKey();
		// The count may write the lease again, which a refused re-entry leaves behind.
		this.registry.sending(owner, lockKey);
		CompletableFuture<Long> counted;
		try {
			counted = this.count.acknowledged(hold);
		}
		catch (RuntimeException ex) {
			counted = CompletableFuture.failedFuture(ex);
		}
		return counted.handle((acked, error) -> {
			if (error != null) {
				this.registry.failed(owner, lockKey);
				throw (error instanceof CompletionException completion) ? completion : new CompletionException(error);
			}
			long replicas = (acked != null) ? acked : 0;
			this.registry.replied(owner, lockKey, (replicas >= this.replicas) ? -1 : hold.spec().leaseMillis());
			return replicas;
		});
	}

	private LockAccessException late(Grant hold, boolean released) {
		return new LockAccessException(hold.spec().name(), "acquired, but its replication was confirmed only "
				+ TimeUnit.NANOSECONDS.toMillis(this.port.nanoTime() - hold.sentNanos())
				+ " ms after its acquisition was sent, when its lease of " + hold.spec().leaseMillis()
				+ " ms had ended; " + release(released) + ": give it a lease longer than the replica check takes",
				null);
	}

	private static String release(boolean released) {
		return released ? "released it" : "its release was not answered yet, and is sent until Redis answers";
	}

	private LockAccessException refusal(LockName name, long acked, boolean released) {
		String release = release(released);
		if (acked < 0) {
			return new LockAccessException(name, "acquired, but the server no longer had it when its replication was "
					+ "checked (the connection moved to another server, as in a failover)", null);
		}
		return new LockAccessException(name,
				"acquired, but only " + acked + " of " + this.replicas + " replicas acknowledged it within "
						+ this.timeoutMillis + " ms; " + release
						+ ", since a failover now could give it to someone else",
				null);
	}

	private static LockAccessException gaveUp(List<Grant> holds) {
		return new LockAccessException(holds.get(0).spec().name(),
				"acquired, but its replication was not confirmed "
						+ "within the wait time plus one command timeout; it is released once the check ends",
				new TimeoutException());
	}

	/**
	 * Release a hold nobody takes, sent until Redis answers, as every release.
	 * @return completed with {@code true} once Redis ran the first release, with
	 * {@code false} once that got no reply
	 */
	private CompletableFuture<Boolean> release(Grant hold) {
		LockSpec spec = hold.spec();
		// Until Redis answers, the owner may still hold it: at most for its lease.
		this.registry.leaseLeftBehind(hold);
		ScriptCall release = spec.kind().release(spec, hold.owner(), hold.token(), hold.hold(), this.handOff, 0);
		CompletableFuture<Boolean> answered = new CompletableFuture<>();
		this.port.run(spec.name(), "release", release, Completion.of((reply) -> answered.complete(true), (error) -> {
			answered.complete(false);
			if (DriverCommands.mayHaveRun(error)) {
				this.port.schedule(() -> DriverCommands.sendUntilAnswered(this.port, spec.name(), "release", release),
						DriverCommands.UNDO_RETRY_NANOS);
			}
		}));
		return answered;
	}

	private void releaseQuietly(Grant hold) {
		try {
			release(hold);
		}
		catch (RuntimeException ex) {
			// Its lease ends it.
		}
	}

	private static Throwable unwrap(Throwable error) {
		return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
	}

}
