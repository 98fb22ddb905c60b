package io.github.distributedlock.redis.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.script.ScriptCall;
import org.jspecify.annotations.Nullable;

/**
 * A port whose scripts a test answers as Redis would, on a virtual clock, with timers
 * that fire only when a test advances the clock: for tests of the driver's steps with no
 * Redis.
 */
final class ManualPort implements LockPort {

	long now = TimeUnit.SECONDS.toNanos(1);

	final List<Run> runs = new ArrayList<>();

	final List<Listener> listeners = new ArrayList<>();

	@Override
	public long nanoTime() {
		return this.now;
	}

	@Override
	public UniqueIds ids() {
		return UniqueIds.ofProcess();
	}

	final List<Timer> timers = new ArrayList<>();

	int scheduled;

	/**
	 * Keep the task; it runs only when a test {@linkplain #advance advances} the clock
	 * past it.
	 */
	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		this.scheduled++;
		Timer timer = new Timer(this.now + delayNanos, task);
		this.timers.add(timer);
		return () -> this.timers.remove(timer);
	}

	/**
	 * Move the clock on, and run the tasks that came due, in order.
	 */
	void advance(long nanos) {
		this.now += nanos;
		List<Timer> due = this.timers.stream()
			.filter((timer) -> timer.at() - this.now <= 0)
			.sorted((a, b) -> Long.compare(a.at(), b.at()))
			.toList();
		this.timers.removeAll(due);
		due.forEach((timer) -> timer.task().run());
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		this.runs.add(new Run(operation, call, reply));
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		this.listeners.add(listener);
		return () -> {
		};
	}

	void reply(int run, Object reply) {
		this.runs.get(run).reply().granted(reply);
	}

	record Run(String operation, ScriptCall call, Completion<@Nullable Object> reply) {
	}

	record Timer(long at, Runnable task) {
	}

}
