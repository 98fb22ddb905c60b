package io.github.distributedlock.redis.driver;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

/**
 * A port with a Reactor scheduler's timers and no Redis: for tests of the local lines of
 * polling locks, which run no script and listen to nothing.
 */
final class SchedulerPort implements LockPort {

	private final Scheduler scheduler;

	SchedulerPort(Scheduler scheduler) {
		this.scheduler = scheduler;
	}

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public UniqueIds ids() {
		return UniqueIds.ofProcess();
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		return this.scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS)::dispose;
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		throw new IllegalStateException("No Redis here");
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		throw new IllegalStateException("Polling lines need no subscription");
	}

}
