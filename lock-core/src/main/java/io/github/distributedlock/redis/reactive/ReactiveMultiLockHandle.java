package io.github.distributedlock.redis.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.redis.driver.MultiHoldView;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The holds of one reactive multi-lock as one handle, like {@code MultiLockHandle}: its
 * name and token are the first lock's, its lease the shortest; it is held while every
 * hold is, and lost when any is.
 */
final class ReactiveMultiLockHandle extends MultiHoldView<ReactiveRedisLockHandle> implements ReactiveLockHandle {

	ReactiveMultiLockHandle(List<ReactiveRedisLockHandle> handles, Duration waitedFor) {
		super(handles, waitedFor);
	}

	@Override
	public Mono<Boolean> isHeld() {
		return Flux.fromIterable(handles()).concatMap(ReactiveLockHandle::isHeld).all(Boolean::booleanValue);
	}

	@Override
	public Mono<Void> whenLost() {
		return Mono.firstWithSignal(handles().stream().map(ReactiveLockHandle::whenLost).toList());
	}

	@Override
	public Mono<Void> extend(Duration lease) {
		return Flux.fromIterable(handles()).concatMap((hold) -> hold.extend(lease)).then();
	}

	/**
	 * Release the holds in reverse order, all of them even if some fail; the first
	 * failure is the error, with the others suppressed.
	 */
	@Override
	public Mono<Void> release() {
		return Mono.defer(() -> {
			List<ReactiveLockHandle> reversed = new ArrayList<>(handles());
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

	/**
	 * Release the holds, which their subscriber never got, in reverse order, without
	 * waiting for Redis and without keeping any lock for its minimum hold.
	 */
	void releaseUnused() {
		List<ReactiveRedisLockHandle> reversed = new ArrayList<>(handles());
		Collections.reverse(reversed);
		reversed.forEach(ReactiveRedisLockHandle::releaseUnused);
	}

	@Override
	public String toString() {
		return "ReactiveLockHandle" + handles().stream().map(ReactiveLockHandle::name).toList();
	}

}
