package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockOperations;

import org.springframework.context.SmartLifecycle;

/**
 * Closes the lock template when the context stops, after the web server's graceful
 * shutdown has let in-flight requests finish: threads still waiting for a lock then fail
 * with a {@link io.github.distributedlock.LockAccessException}, and subscriptions close.
 * Locks held by methods still running stay releasable: the connection factory is
 * destroyed only after every lifecycle bean has stopped.
 */
final class LockTemplateShutdown implements SmartLifecycle {

	/**
	 * Stops after the graceful shutdown of the web server
	 * ({@code SmartLifecycle.DEFAULT_PHASE - 1024}) and before its stop.
	 */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1536;

	private final LockOperations lockOperations;

	private volatile boolean running;

	LockTemplateShutdown(LockOperations lockOperations) {
		this.lockOperations = lockOperations;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.lockOperations.close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
