package io.github.distributedlock.inmemory;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockName;

/**
 * The holds of one {@link InMemoryLockTemplate#acquireAll(List)}, released together. As a
 * context it stands for its first lock.
 */
final class InMemoryMultiLockHandle implements LockHandle {

	private final List<InMemoryLockHandle> holds;

	InMemoryMultiLockHandle(List<InMemoryLockHandle> holds) {
		this.holds = holds;
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
		return this.holds.get(0).waited();
	}

	@Override
	public Duration waitedFor() {
		return this.holds.get(0).waitedFor();
	}

	@Override
	public int attempts() {
		return this.holds.get(0).attempts();
	}

	@Override
	public Duration remainingLease() {
		return this.holds.stream().map(LockHandle::remainingLease).min(Duration::compareTo).orElse(Duration.ZERO);
	}

	@Override
	public boolean isHeld() {
		return this.holds.stream().allMatch(LockHandle::isHeld);
	}

	@Override
	public void extend(Duration lease) {
		this.holds.forEach((hold) -> hold.extend(lease));
	}

	@Override
	public void close() {
		RuntimeException failure = null;
		for (int i = this.holds.size() - 1; i >= 0; i--) {
			try {
				this.holds.get(i).close();
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

}
