package io.github.distributedlock.redis.reactive;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.driver.Answer;
import io.github.distributedlock.redis.driver.ChannelRounds;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.ReactiveLockCommands;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;

/**
 * The driver's {@link LockPort} on Spring Data Redis's reactive connection, with timers
 * on a Reactor {@link Scheduler}. Thread-safe.
 */
public final class ReactorLockPort implements LockPort {

	private final ReactiveLockCommands commands;

	private final Scheduler timer;

	private final Supplier<ReactiveRedisMessageListenerContainer> container;

	private volatile boolean closed;

	/**
	 * @param container supplies the container to subscribe with, when first needed
	 */
	public ReactorLockPort(ReactiveLockCommands commands, Scheduler timer,
			Supplier<ReactiveRedisMessageListenerContainer> container) {
		this.commands = commands;
		this.timer = timer;
		this.container = container;
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
		if (this.closed) {
			// The template stopped: its lines failed every waiter, and a release sent
			// again until Redis answers is sent no more.
			return () -> {
			};
		}
		Disposable scheduled = (delayNanos <= 0) ? this.timer.schedule(task)
				: this.timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
		return scheduled::dispose;
	}

	/**
	 * Send a script. An answer that comes inside the call (a failure to send: the factory
	 * stopped) is told on the timer's thread.
	 */
	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		Answer answer = new Answer(reply, Thread.currentThread(), this.timer::schedule);
		this.commands.run(name, operation, call).subscribe(answer::granted, answer::failed);
		answer.sent();
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		List<ChannelTopic> topics = channels.stream().map(ChannelTopic::of).toList();
		ChannelRounds rounds = new ChannelRounds(channels);
		SubscriptionListener confirmations = new SubscriptionListener() {

			@Override
			public void onChannelSubscribed(byte[] channel, long count) {
				// Subscribed once every channel is; again after each reconnect.
				if (rounds.confirmed(channel) > 0) {
					listener.subscribed();
				}
			}

		};
		Disposable subscription = this.container.get()
			.receive(topics, confirmations)
			.subscribe((message) -> listener.message(message.getMessage().getBytes(StandardCharsets.UTF_8)),
					listener::lost);
		return subscription::dispose;
	}

	/**
	 * Stop the timers: a task scheduled after this never runs (one scheduled before may
	 * still run once). The scheduler is shared, and stays.
	 */
	public void close() {
		this.closed = true;
	}

}
