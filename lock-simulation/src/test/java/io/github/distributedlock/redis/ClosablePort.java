package io.github.distributedlock.redis;

import java.util.HashSet;
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
 * scheduler (the blocking port's own timer, shut down, drops it: not drawn, see
 * docs/design/simulation-runs.md). Scripts still go out and reply. What it sends after
 * the close that a closed template must no longer start (an attempt, a renewal) is told
 * to {@code startedAfterClose}.
 */
final class ClosablePort extends ForwardingPort {

	// What a template that closed never starts again.
	private static final Set<String> STARTS = Set.of("acquire", "renew");

	private final Consumer<String> startedAfterClose;

	// The timers set and not yet run, each with whether the close dropped it.
	private final Set<boolean[]> pending = new HashSet<>();

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
		boolean[] dropped = new boolean[1];
		this.pending.add(dropped);
		Cancellable timer = delegate().schedule(() -> {
			this.pending.remove(dropped);
			if (!dropped[0]) {
				task.run();
			}
		}, delayNanos);
		return () -> {
			this.pending.remove(dropped);
			timer.cancel();
		};
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		if (this.closed && STARTS.contains(operation)) {
			this.startedAfterClose.accept(operation + " of " + name);
		}
		delegate().run(name, operation, call, reply);
	}

	/**
	 * Close the port.
	 * @param dropsTimers whether the timers set before are dropped, as the blocking
	 * port's are (not drawn: {@code AcquisitionCallRun#undrawnCloses})
	 */
	void close(boolean dropsTimers) {
		this.closed = true;
		if (dropsTimers) {
			this.pending.forEach((dropped) -> dropped[0] = true);
		}
		this.pending.clear();
	}

	/**
	 * Return how many timers were refused since the close.
	 */
	int refused() {
		return this.refused;
	}

}
