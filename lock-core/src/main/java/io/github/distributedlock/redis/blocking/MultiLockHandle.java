package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;

/**
 * The holds of an all-or-nothing multi-lock, released together. Its own name and token
 * are those of the first lock in acquisition order; {@link #locks()} has each one.
 */
public final class MultiLockHandle implements LockHandle {

	private final List<RedisLockHandle> holds;

	private final Duration waitedFor;

	MultiLockHandle(List<RedisLockHandle> holds, Duration waitedFor) {
		this.holds = List.copyOf(holds);
		this.waitedFor = waitedFor;
	}

	@Override
	public List<? extends LockContext> locks() {
		return this.holds;
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
		return this.holds.stream().anyMatch(RedisLockHandle::waited);
	}

	@Override
	public Duration waitedFor() {
		return this.waitedFor;
	}

	@Override
	public int attempts() {
		return this.holds.stream().mapToInt(RedisLockHandle::attempts).sum();
	}

	@Override
	public Duration remainingLease() {
		return this.holds.stream().map(RedisLockHandle::remainingLease).min(Duration::compareTo).orElseThrow();
	}

	@Override
	public boolean isHeld() {
		return this.holds.stream().allMatch(RedisLockHandle::isHeld);
	}

	@Override
	public CompletionStage<Void> whenLost() {
		CompletableFuture<?>[] holds = this.holds.stream()
			.map((hold) -> hold.whenLost().toCompletableFuture())
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.anyOf(holds).<Void>thenApply((lost) -> null).minimalCompletionStage();
	}

	@Override
	public void extend(Duration lease) {
		for (RedisLockHandle hold : this.holds) {
			hold.extend(lease);
		}
	}

	@Override
	public void close() {
		releaseAll(this.holds);
	}

	/**
	 * Release holds in reverse order, all of them even if some fail; the first failure is
	 * thrown with the others suppressed.
	 */
	static void releaseAll(List<RedisLockHandle> holds) {
		RuntimeException failure = null;
		for (int i = holds.size() - 1; i >= 0; i--) {
			try {
				holds.get(i).close();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	@Override
	public String toString() {
		return "LockHandle" + this.holds.stream().map(RedisLockHandle::name).toList();
	}

}
