package io.github.distributedlock.redis.driver;

import java.util.List;

import io.github.distributedlock.redis.core.UniqueIds;

/**
 * A port over another: that one's clock, ids, timers and subscriptions, and scripts run a
 * way of its own.
 */
public abstract class ForwardingPort implements LockPort {

	private final LockPort port;

	protected ForwardingPort(LockPort port) {
		this.port = port;
	}

	/**
	 * Return the port this one forwards to.
	 */
	protected final LockPort delegate() {
		return this.port;
	}

	@Override
	public long nanoTime() {
		return this.port.nanoTime();
	}

	@Override
	public UniqueIds ids() {
		return this.port.ids();
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		return this.port.schedule(task, delayNanos);
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		return this.port.listen(channels, listener);
	}

}
