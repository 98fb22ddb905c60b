package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.redis.driver.MultiHoldView;

/**
 * The holds of an all-or-nothing multi-lock, released together. Its own name and token
 * are those of the first lock in acquisition order; {@link #locks()} has each one.
 */
public final class MultiLockHandle extends MultiHoldView<RedisLockHandle> implements LockHandle {

	MultiLockHandle(List<RedisLockHandle> handles, Duration waitedFor) {
		super(handles, waitedFor);
	}

	@Override
	public List<? extends LockContext> locks() {
		return handles();
	}

	@Override
	public boolean isHeld() {
		return handles().stream().allMatch(RedisLockHandle::isHeld);
	}

	@Override
	public CompletionStage<Void> whenLost() {
		CompletableFuture<?>[] holds = handles().stream()
			.map((hold) -> hold.whenLost().toCompletableFuture())
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.anyOf(holds).<Void>thenApply((lost) -> null).minimalCompletionStage();
	}

	@Override
	public void extend(Duration lease) {
		for (RedisLockHandle hold : handles()) {
			hold.extend(lease);
		}
	}

	@Override
	public void close() {
		releaseAll(handles());
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
		return "LockHandle" + handles().stream().map(RedisLockHandle::name).toList();
	}

}
