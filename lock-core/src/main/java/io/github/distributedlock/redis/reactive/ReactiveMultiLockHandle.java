package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.LockName;
import io.github.distributedlock.ReactiveLockHandle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The holds of one reactive multi-lock, as one handle: the reactive counterpart of
 * {@code MultiLockHandle}. Its name and fencing token are the first lock's (in the global
 * order); it is held while every hold is, its lease is the shortest, it is lost when any
 * hold is, and its release releases every hold, in reverse order, even if some fail.
 */
final class ReactiveMultiLockHandle implements ReactiveLockHandle {

	private final List<ReactiveLockHandle> holds;

	private final Duration waitedFor;

	ReactiveMultiLockHandle(List<? extends ReactiveLockHandle> holds, Duration waitedFor) {
		this.holds = List.copyOf(holds);
		this.waitedFor = waitedFor;
	}

	@Override
	public LockName name() {
		return this.holds.get(0).name();
	}

	@Override
	public long fencingToken() {
		return this.holds.get(0).fencingToken();
	}

	@Override
	public boolean waited() {
		return this.holds.stream().anyMatch(ReactiveLockHandle::waited);
	}

	@Override
	public Duration waitedFor() {
		return this.waitedFor;
	}

	@Override
	public int attempts() {
		return this.holds.stream().mapToInt(ReactiveLockHandle::attempts).sum();
	}

	@Override
	public Duration remainingLease() {
		return this.holds.stream().map(ReactiveLockHandle::remainingLease).min(Duration::compareTo).orElseThrow();
	}

	@Override
	public Mono<Boolean> isHeld() {
		return Flux.fromIterable(this.holds).concatMap(ReactiveLockHandle::isHeld).all(Boolean::booleanValue);
	}

	@Override
	public Mono<Void> whenLost() {
		return Mono.firstWithSignal(this.holds.stream().map(ReactiveLockHandle::whenLost).toList());
	}

	@Override
	public Mono<Void> extend(Duration lease) {
		return Flux.fromIterable(this.holds).concatMap((hold) -> hold.extend(lease)).then();
	}

	@Override
	public Mono<Void> release() {
		return releaseAll(this.holds);
	}

	/**
	 * Release holds in reverse order, all of them even if some fail; the first failure is
	 * the error, with the others suppressed.
	 */
	static Mono<Void> releaseAll(List<? extends ReactiveLockHandle> holds) {
		return Mono.defer(() -> {
			List<ReactiveLockHandle> reversed = new ArrayList<>(holds);
			Collections.reverse(reversed);
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			return Flux.fromIterable(reversed).concatMap((hold) -> hold.release().onErrorResume((ex) -> {
				failures.add(ex);
				return Mono.empty();
			})).then(Mono.defer(() -> {
				if (failures.isEmpty()) {
					return Mono.empty();
				}
				Throwable first = failures.get(0);
				failures.subList(1, failures.size()).forEach(first::addSuppressed);
				return Mono.error(first);
			}));
		});
	}

	@Override
	public String toString() {
		return "ReactiveLockHandle" + this.holds.stream().map(ReactiveLockHandle::name).toList();
	}

}
