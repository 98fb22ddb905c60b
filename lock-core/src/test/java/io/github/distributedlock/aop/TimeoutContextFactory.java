package io.github.distributedlock.aop;

import java.util.List;

import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockTimeoutException;

/**
 * Creates {@link LockTimeoutContext}s for tests outside this package.
 */
public final class TimeoutContextFactory {

	private TimeoutContextFactory() {
	}

	public static LockTimeoutContext create(OnTimeout onTimeout, List<LockName> locks, LockTimeoutException ex) {
		try {
			return new LockTimeoutContext(Object.class.getMethod("toString"), new Object(), new Object[0], onTimeout,
					null, locks, ex);
		}
		catch (NoSuchMethodException failure) {
			throw new IllegalStateException(failure);
		}
	}

}
