package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.core.Grant;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.driver.Acquisitions;
import io.github.distributedlock.redis.driver.HoldRegistry;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.server.ReactiveLockCommands;
import reactor.core.publisher.Mono;

/**
 * The reactive template's acquisitions: the driver's ({@link Acquisitions}), each as a
 * {@code Mono} that its cancellation cancels ({@link AcquisitionMono}). Thread-safe.
 */
public final class ReactiveAcquisitions {

	private final Acquisitions<ReactiveRedisLockHandle> acquisitions;

	private final HoldRegistry holds;

	private final LockPort port;

	private final ReactiveLockCommands commands;

	public ReactiveAcquisitions(Acquisitions<ReactiveRedisLockHandle> acquisitions, LockPort port,
			ReactiveLockCommands commands) {
		this.acquisitions = acquisitions;
		this.holds = acquisitions.registry();
		this.port = port;
		this.commands = commands;
	}

	/**
	 * Take one lock when subscribed to.
	 * @return its handle, or a {@link LockTimeoutException} when the wait time ran out
	 */
	public Mono<ReactiveLockHandle> acquire(LockSpec spec, String owner) {
		return Mono
			.defer(() -> AcquisitionMono.<ReactiveRedisLockHandle>of(
					(done) -> this.acquisitions.one(spec, owner, this.port.nanoTime(), this.port, this::handle, done)))
			.doOnError(LockTimeoutException.class, this::notAcquired)
			.doOnNext(this.holds::announce)
			.<ReactiveLockHandle>map((held) -> held)
			// What reached a cancelled subscriber: nobody will release it.
			.doOnDiscard(Object.class, ReactiveAcquisitions::discarded);
	}

	/**
	 * Take every lock, or none, when subscribed to ({@link Acquisitions#all}).
	 * @param first the first request, whose wait time and reentrancy the multi-lock has
	 * @param requested every request, in the order asked, each multi-lockable
	 * @param start when the acquisition began, in {@link System#nanoTime()}
	 * @return their handle, or a {@link LockTimeoutException} when the wait time ran out
	 */
	public Mono<ReactiveLockHandle> acquireAll(LockSpec first, List<LockSpec> requested, String owner, long start) {
		return AcquisitionMono
			.<List<ReactiveRedisLockHandle>>of(
					(done) -> this.acquisitions.all(first, requested, owner, start, this.port, this::handle, done))
			.doOnError(LockTimeoutException.class, this::notAcquired)
			.doOnNext((won) -> won.forEach(this.holds::announce))
			.<ReactiveLockHandle>map(
					(won) -> new ReactiveMultiLockHandle(won, Duration.ofNanos(System.nanoTime() - start)))
			.doOnDiscard(Object.class, ReactiveAcquisitions::discarded);
	}

	private ReactiveRedisLockHandle handle(Grant grant) {
		return new ReactiveRedisLockHandle(this.holds, grant, this.port, this.commands);
	}

	private void notAcquired(LockTimeoutException timeout) {
		this.holds.notAcquired(timeout.getLockName(), timeout.getWaited());
	}

	/**
	 * Release what a cancelled subscriber never got: a handle, or a list of them.
	 */
	private static void discarded(Object won) {
		if (won instanceof ReactiveLockHandle handle) {
			releaseDropped(handle);
		}
		else if (won instanceof List<?> list) {
			list.forEach(ReactiveAcquisitions::discarded);
		}
	}

	/**
	 * Release a hold that an operator (such as {@code then}) dropped on its way to a
	 * subscriber that cancelled, which the grant's own discard hook no longer reaches.
	 * The subscriber never had it, so no lock is kept for its minimum hold, as for a
	 * grant nobody uses.
	 */
	public static void releaseDropped(ReactiveLockHandle handle) {
		if (handle instanceof ReactiveRedisLockHandle held) {
			held.releaseUnused();
		}
		else if (handle instanceof ReactiveMultiLockHandle all) {
			all.releaseUnused();
		}
		else {
			handle.release().subscribe(null, (ex) -> {
				// Nobody waits for this release: the hold then ends with its lease.
			});
		}
	}

}
