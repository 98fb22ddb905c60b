package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distributedlock.HeldLock;
import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.HoldLife;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * A hold taken by the reactive engine: the owner and fencing token that the release,
 * extend and renew scripts check, as for {@code RedisLockHandle}. Its lease counts from
 * before the attempt that won it was sent, and each renewal's from before the renewal was
 * sent.
 * <p>
 * An auto-renewed hold renews itself every lease/3 on a scheduler timer (no thread of its
 * own), with the watchdog's renew script; a renewal that cannot reach Redis is retried
 * every 100 ms until the lease would have ended, and then the hold is lost. A renewal
 * that finds the lock gone or taken marks it lost at once.
 * <p>
 * The listeners hear of a normal release, and once of a loss: found by a renewal, an
 * extension or the release.
 */
final class ReactiveRedisLockHandle implements ReactiveLockHandle {

	private static final Log logger = LogFactory.getLog(ReactiveRedisLockHandle.class);

	static final String SUBSCRIPTION = "reactive subscription";

	private final Grant grant;

	private final ReactiveLockCommands commands;

	private final Scheduler timer;

	private final Consumer<ReactiveRedisLockHandle> onEnd;

	private final LockListener listener;

	private final LockContext context = new ReactiveHoldContext(this);

	private final Instant since = Instant.now();

	private final AtomicBoolean released = new AtomicBoolean();

	private final AtomicBoolean lost = new AtomicBoolean();

	private final Sinks.Empty<Void> lostSignal = Sinks.empty();

	private final HoldLife life;

	private volatile @Nullable Disposable renewal;

	/**
	 * @param onEnd told once the hold is released, lost or closed
	 * @param listener told of the release or loss of the hold
	 */
	ReactiveRedisLockHandle(Grant grant, ReactiveLockCommands commands, Scheduler timer,
			Consumer<ReactiveRedisLockHandle> onEnd, LockListener listener) {
		this.grant = grant;
		this.commands = commands;
		this.timer = timer;
		this.onEnd = onEnd;
		this.listener = listener;
		this.life = new HoldLife(grant, System.nanoTime());
		if (grant.spec().autoRenew()) {
			scheduleRenewal(this.life.nextRenewalNanos());
		}
	}

	private void scheduleRenewal(long atNanos) {
		synchronized (this) {
			if (this.released.get() || this.lost.get()) {
				return;
			}
			this.renewal = this.timer.schedule(this::renew, Math.max(0, atNanos - System.nanoTime()),
					TimeUnit.NANOSECONDS);
		}
	}

	private void renew() {
		long sentNanos = System.nanoTime();
		this.commands.renew(this.grant).subscribe((result) -> {
			if (result == 1) {
				this.life.renewed(sentNanos);
				scheduleRenewal(this.life.nextRenewalNanos());
			}
			else if (!this.released.get()) {
				markLost();
			}
		}, (error) -> {
			if (this.life.renewalFailed(System.nanoTime())) {
				logger.warn("Could not renew the lease of lock '" + name() + "' before it ended", error);
				markLost();
			}
			else {
				scheduleRenewal(this.life.nextRenewalNanos());
			}
		});
	}

	private void markLost() {
		if (this.lost.compareAndSet(false, true)) {
			stopRenewal();
			this.listener.leaseLost(this.context);
			this.lostSignal.tryEmitEmpty();
		}
	}

	@Override
	public Mono<Void> whenLost() {
		return this.lostSignal.asMono();
	}

	/**
	 * Return this hold as the listeners see it.
	 */
	LockContext lockContext() {
		return this.context;
	}

	void stopRenewal() {
		Disposable current;
		synchronized (this) {
			current = this.renewal;
			this.renewal = null;
		}
		if (current != null) {
			current.dispose();
		}
		this.onEnd.accept(this);
	}

	@Override
	public LockName name() {
		return this.grant.spec().name();
	}

	@Override
	public long fencingToken() {
		return this.grant.token();
	}

	@Override
	public boolean waited() {
		return this.grant.waited();
	}

	@Override
	public Duration waitedFor() {
		return this.grant.waitedFor();
	}

	@Override
	public int attempts() {
		return this.grant.attempts();
	}

	@Override
	public Duration remainingLease() {
		if (this.released.get() || this.lost.get()) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(this.life.remainingNanos(System.nanoTime()));
	}

	@Override
	public Mono<Boolean> isHeld() {
		return Mono.defer(
				() -> (this.released.get() || this.lost.get()) ? Mono.just(false) : this.commands.isHeld(this.grant));
	}

	@Override
	public Mono<Void> extend(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		if (!LockRequest.isValidLease(lease)) {
			return Mono.error(new IllegalArgumentException("Lock '" + name() + "': lease must be between 1 ms and "
					+ LockRequest.MAX_LEASE.toDays() + " days, but was " + lease));
		}
		return Mono.defer(() -> {
			if (this.released.get()) {
				return Mono.error(new LockLeaseLostException(name(), fencingToken(), "extended after it was released"));
			}
			long sentNanos = System.nanoTime();
			return this.commands.extend(this.grant, lease.toMillis()).flatMap((result) -> {
				if (result < 0) {
					markLost();
					return Mono
						.error(new LockLeaseLostException(name(), fencingToken(), lostReason("extended", result)));
				}
				this.life.extended(sentNanos, lease.toMillis());
				return Mono.empty();
			});
		});
	}

	@Override
	public Mono<Void> release() {
		return Mono.defer(() -> {
			if (!this.released.compareAndSet(false, true)) {
				return Mono.empty();
			}
			stopRenewal();
			return this.commands.release(this.grant, this.life.minimumHoldLeftMillis(System.nanoTime()))
				.doOnError(LockAccessException.class, (ex) -> this.listener.releaseFailed(this.context, ex))
				.flatMap((result) -> {
					if (result < 0) {
						markLost();
						return Mono
							.error(new LockLeaseLostException(name(), fencingToken(), lostReason("released", result)));
					}
					this.listener.released(this.context, Duration.ofNanos(this.life.heldNanos(System.nanoTime())));
					return Mono.empty();
				});
		});
	}

	private static String lostReason(String operation, long result) {
		return (result == -1) ? operation + " after the lock had already expired"
				: operation + " after another owner had taken the lock";
	}

	/**
	 * Return whether the hold is neither released nor lost, and its lease is not over.
	 */
	boolean isLive(long nowNanos) {
		return !this.released.get() && !this.lost.get() && !this.life.isOver(nowNanos);
	}

	/**
	 * Return a snapshot for operators. No thread owns the hold, and its owner id carries
	 * the instance's secret, so the thread is given as {@value #SUBSCRIPTION}.
	 */
	HeldLock snapshot() {
		return new HeldLock(name(), SUBSCRIPTION, this.since, remainingLease(), fencingToken(),
				this.grant.spec().origin());
	}

	@Override
	public String toString() {
		return "ReactiveLockHandle[" + name() + ", token=" + fencingToken() + "]";
	}

}
