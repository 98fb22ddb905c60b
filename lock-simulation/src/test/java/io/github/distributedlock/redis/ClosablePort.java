package io.github.distributedlock.redis;

import java.util.Set;
import java.util.function.Consumer;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.ForwardingPort;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * A port of a client whose template may close, as both templates' ports close
 * ({@code BlockingPort.close}, {@code ReactorLockPort.close}): once closed, a timer set
 * never runs. A timer set before still runs once, as on the reactive port's shared
 * scheduler and the blocking port's timer, shut down. Scripts still go out and reply.
 * What it sends after the close that a closed template must no longer start (an attempt,
 * a renewal) is told to {@code startedAfterClose}.
 */
final class ClosablePort extends ForwardingPort {

	// What a template that closed never starts again.
	private static final Set<String> STARTS = Set.of("acquire", "renew");

	private final Consumer<String> startedAfterClose;

	private boolean closed;

	private int refused;

	ClosablePort(LockPort port, Consumer<String> startedAfterClose) {
		super(port);
		this.startedAfterClose = startedAfterClose;
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		if (this.closed) {
			this.refused++;
			return () -> {
			};
		}
		return delegate().schedule(task, delayNanos);
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		if (this.closed && STARTS.contains(operation)) {
			this.startedAfterClose.accept(operation + " of " + name);
		}
		delegate().run(name, operation, call, reply);
	}

	void close() {
		this.closed = true;
	}

	/**
	 * Return how many timers were refused since the close.
	 */
	int refused() {
		return this.refused;
	}

}
