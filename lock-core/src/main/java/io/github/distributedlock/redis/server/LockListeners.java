package io.github.distributedlock.redis.server;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockContext;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockName;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Calls every registered {@link LockListener}, logging and ignoring what they throw: a
 * broken metrics listener must never break locking.
 */
public final class LockListeners implements LockListener {

	private static final Log logger = LogFactory.getLog(LockListeners.class);

	private final List<LockListener> listeners;

	public LockListeners(List<LockListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void acquired(LockContext context) {
		each((listener) -> listener.acquired(context));
	}

	@Override
	public void notAcquired(LockName name, Duration waited) {
		each((listener) -> listener.notAcquired(name, waited));
	}

	@Override
	public void released(LockContext context, Duration heldFor) {
		each((listener) -> listener.released(context, heldFor));
	}

	@Override
	public void leaseLost(LockContext context) {
		each((listener) -> listener.leaseLost(context));
	}

	@Override
	public void releaseFailed(LockContext context, LockAccessException failure) {
		each((listener) -> listener.releaseFailed(context, failure));
	}

	private void each(Consumer<LockListener> call) {
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("LockListener " + listener + " failed; ignoring", ex);
			}
		}
	}

}
