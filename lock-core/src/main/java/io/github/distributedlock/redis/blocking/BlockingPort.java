package io.github.distributedlock.redis.blocking;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The blocking template's {@link LockPort}, shared by its acquisitions: timers on one
 * thread, subscriptions changed in order on another (so that no waiter waits on the
 * container's unbounded registration), and scripts that run after their caller left on a
 * background thread. Thread-safe.
 */
public final class BlockingPort implements LockPort, AutoCloseable {

	private static final Log logger = LogFactory.getLog(BlockingPort.class);

	private final LockCommands commands;

	private final @Nullable RedisMessageListenerContainer container;

	private final ScheduledThreadPoolExecutor timer;

	private final ExecutorService subscriber;

	private final ExecutorService background;

	private final LockPort here = new LockPort() {

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public Cancellable schedule(Runnable task, long delayNanos) {
			// On the background thread: the task may run a script here, which must not
			// hold up the timers of every acquisition.
			return BlockingPort.this.schedule(() -> execute(task), delayNanos);
		}

		@Override
		public void run(LockName name, String operation, ScriptCall call, Reply reply) {
			BlockingPort.this.commands.runForDriver(name, operation, call, reply);
		}

		@Override
		public Cancellable listen(List<String> channels, Listener listener) {
			return BlockingPort.this.listen(channels, listener);
		}

	};

	/**
	 * @param container the container to subscribe with, or {@code null} if waiters hear
	 * no messages (they wake when the holder's lease ends)
	 * @param threads the background thread's name, and the prefix of the others' names
	 */
	public BlockingPort(LockCommands commands, @Nullable RedisMessageListenerContainer container, String threads) {
		this.commands = commands;
		this.container = container;
		this.timer = new ScheduledThreadPoolExecutor(1, (runnable) -> daemon(runnable, threads + "-timer"));
		this.timer.setRemoveOnCancelPolicy(true);
		this.subscriber = singleThread(threads + "-subscriber");
		this.background = singleThread(threads);
	}

	private static ExecutorService singleThread(String name) {
		return new ThreadPoolExecutor(1, 1, 0, TimeUnit.NANOSECONDS, new LinkedBlockingQueue<>(),
				(runnable) -> daemon(runnable, name));
	}

	private static Thread daemon(Runnable runnable, String name) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		return thread;
	}

	LockCommands commands() {
		return this.commands;
	}

	/**
	 * Return a port that runs each script on the calling thread and tells its reply
	 * before returning, for a hold's extension and release, which do nothing after a port
	 * call returns.
	 */
	LockPort here() {
		return this.here;
	}

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		ScheduledFuture<?> scheduled;
		try {
			scheduled = this.timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the lines failed every waiter.
			return () -> {
			};
		}
		return () -> scheduled.cancel(false);
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Reply reply) {
		execute(() -> this.commands.runForDriver(name, operation, call, reply));
	}

	void execute(Runnable task) {
		try {
			this.background.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// Closed: what is left ends with its lease, or with the line.
		}
	}

	@Override
	public Cancellable listen(List<String> channels, Listener listener) {
		RedisMessageListenerContainer listening = this.container;
		if (listening == null) {
			// Nothing to hear: the waiters wake when the holder's lease ends.
			schedule(listener::subscribed, 0);
			return () -> {
			};
		}
		Subscription subscription = new Subscription(channels, listener);
		this.subscriber.execute(() -> subscription.subscribe(listening));
		return () -> {
			try {
				this.subscriber.execute(() -> subscription.unsubscribe(listening));
			}
			catch (RejectedExecutionException ex) {
				subscription.unsubscribe(listening);
			}
		};
	}

	/**
	 * Stop the timers; the threads stop once they ran what is queued (the lines'
	 * unsubscriptions, waited for a little while).
	 */
	@Override
	public void close() {
		this.timer.shutdownNow();
		this.subscriber.shutdown();
		this.background.shutdown();
		try {
			this.subscriber.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static final class Subscription implements MessageListener, SubscriptionListener {

		private final List<ChannelTopic> topics;

		private final Listener listener;

		private final AtomicInteger unconfirmed;

		private volatile boolean cancelled;

		Subscription(List<String> channels, Listener listener) {
			this.topics = channels.stream().map(ChannelTopic::new).toList();
			this.listener = listener;
			this.unconfirmed = new AtomicInteger(channels.size());
		}

		void subscribe(RedisMessageListenerContainer container) {
			if (this.cancelled) {
				return;
			}
			try {
				container.addMessageListener(this, this.topics);
				// The container confirms through onChannelSubscribed; when it was already
				// listening, a normal return means the subscription is in place.
				if (container.isListening() && this.unconfirmed.getAndSet(0) > 0) {
					this.listener.subscribed();
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Could not subscribe to " + this.topics + "; waiters wake when the lease ends", ex);
				this.listener.lost(ex);
			}
		}

		void unsubscribe(RedisMessageListenerContainer container) {
			this.cancelled = true;
			try {
				container.removeMessageListener(this, this.topics);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not unsubscribe from " + this.topics, ex);
			}
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.listener.message(message.getBody());
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			int left = this.unconfirmed.decrementAndGet();
			if (left == 0 || left < 0) {
				// Every channel is subscribed; again after a reconnect, when a release
				// may have been missed.
				this.listener.subscribed();
			}
		}

	}

}
