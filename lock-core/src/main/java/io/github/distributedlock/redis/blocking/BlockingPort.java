package io.github.distributedlock.redis.blocking;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distributedlock.LockException;
import io.github.distributedlock.LockInterruptedException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.UniqueIds;
import io.github.distributedlock.redis.driver.Answer;
import io.github.distributedlock.redis.driver.ChannelRounds;
import io.github.distributedlock.redis.driver.Completion;
import io.github.distributedlock.redis.driver.ForwardingPort;
import io.github.distributedlock.redis.driver.LockPort;
import io.github.distributedlock.redis.script.ScriptCall;
import io.github.distributedlock.redis.server.ScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The blocking template's {@link LockPort}, shared by its acquisitions, renewals and
 * lines: timers on one thread, subscriptions changed in order on another (so that no
 * waiter waits on the container's unbounded registration). On the factory's shared
 * Lettuce connection a script goes out without blocking, bounded by the command timeout,
 * and its reply is told on the thread that reads it; on other connections (Jedis, a pool)
 * it runs as a plain call on a thread of a pool of its own. Thread-safe.
 */
public final class BlockingPort implements LockPort, AutoCloseable {

	private static final Log logger = LogFactory.getLog(BlockingPort.class);

	private final LockCommands commands;

	private final @Nullable RedisMessageListenerContainer container;

	private final ScheduledThreadPoolExecutor timer;

	private final ExecutorService subscriber;

	private final ExecutorService background;

	// Sends before the shared connection is known, in order, one at a time: the first
	// opens it, on the factory's lock, which the others would only queue on.
	private final ExecutorService connecting;

	private final ExecutorService calls;

	private final @Nullable Duration commandTimeout;

	private final boolean inBackground;

	/**
	 * @param container the container to subscribe with, or {@code null} if waiters hear
	 * no messages (they wake when the holder's lease ends)
	 * @param threads the background thread's name, and the prefix of the others' names
	 */
	public BlockingPort(LockCommands commands, @Nullable RedisMessageListenerContainer container, String threads) {
		this(commands, container, threads, false);
	}

	private BlockingPort(LockCommands commands, @Nullable RedisMessageListenerContainer container, String threads,
			boolean inBackground) {
		this.inBackground = inBackground;
		this.commands = commands;
		this.container = container;
		this.timer = new BeatingTimer((runnable) -> daemon(runnable, threads + "-timer"));
		this.subscriber = singleThread(threads + "-subscriber");
		this.background = singleThread(threads);
		this.connecting = singleThread(threads + "-connect");
		this.calls = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
				(runnable) -> daemon(runnable, threads + "-command"));
		this.commandTimeout = commands.commandTimeout();
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

	/**
	 * Return a port that runs each script as a plain call on its background thread, in
	 * order: the watchdog's, so that what a renewal's reply sets off (a loss, a handle's
	 * {@code whenLost} and the listeners) runs there, never on a client's I/O thread.
	 */
	public static BlockingPort inBackground(LockCommands commands, String threads) {
		return new BlockingPort(commands, null, threads, true);
	}

	/**
	 * Run a hold's extension or release through this port, and tell the replies of the
	 * scripts it sends on the calling thread, once they came: what a reply sets off (the
	 * listeners, a lost hold's signal) runs there, never on a client's I/O thread. The
	 * scripts go out as every other does, so an interrupt from before does not stop them;
	 * the wait ends at one command timeout or at an interrupt that comes meanwhile
	 * ({@link CallerReplies#tell}). A script sent after the last reply was told (a
	 * release sent again until Redis answers) is told where its reply comes. The
	 * interrupt stays set.
	 */
	void runOnCaller(Consumer<LockPort> command) {
		CallerReplies port = new CallerReplies(this);
		command.accept(port);
		port.tell();
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

	/**
	 * Return the command timeout where scripts go out without blocking, or {@code null}
	 * where they run as plain calls.
	 */
	public @Nullable Duration commandTimeout() {
		return this.commandTimeout;
	}

	@Override
	public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
		send(name, operation, call, reply, Thread.currentThread());
	}

	/**
	 * Send a script without blocking, its reply or the command timeout's failure told on
	 * the thread that brings it; or run it as a plain call. The command timeout counts
	 * from here: until the shared connection is known, the send (which opens it, and may
	 * wait for Redis up to the connect timeout) runs on the connecting thread.
	 * @param sender the thread that must not be told inside this call, or {@code null}
	 */
	private void send(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply,
			@Nullable Thread sender) {
		Runnable plain = () -> this.commands.runForDriver(name, operation, call, reply);
		if (this.inBackground) {
			execute(plain);
			return;
		}
		Duration timeout = this.commandTimeout;
		if (timeout == null || this.timer.isShutdown()) {
			// Plain calls; or closed, where no timer would bound it.
			call(plain);
			return;
		}
		Answer answer = new Answer(reply, sender, (told) -> runOn(this.background, told));
		Cancellable expiry = schedule(() -> answer.failed(timedOut(name, operation, timeout)), timeout.toNanos());
		if (this.commands.sendsAtOnce()) {
			sendAsync(name, operation, call, answer, expiry);
		}
		else {
			// A script whose answer came while it waited (its command timeout) is not
			// sent: it never runs, as one cancelled before it was written.
			runOn(this.connecting, () -> {
				if (!answer.isAnswered()) {
					sendAsync(name, operation, call, answer, expiry);
				}
			});
		}
		answer.sent();
	}

	private void sendAsync(LockName name, String operation, ScriptCall call, Answer answer, Cancellable expiry) {
		CompletableFuture<Object> sent;
		try {
			sent = this.commands.sendForDriver(call);
		}
		catch (RuntimeException ex) {
			expiry.cancel();
			answer.failed(ScriptRunner.failure(name, operation, ex));
			return;
		}
		if (sent == null) {
			// No shared Lettuce connection after all: a plain call, still bounded.
			this.commands.runForDriver(name, operation, call, answer);
			expiry.cancel();
			return;
		}
		sent.whenComplete((result, error) -> {
			expiry.cancel();
			if (error != null) {
				answer.failed(ScriptRunner.failure(name, operation, error));
			}
			else {
				answer.granted(result);
			}
		});
	}

	/**
	 * Run plain calls (Jedis, a pool) on a thread of the pool, or once that is closed on
	 * a thread of their own, so that each still tells its reply.
	 */
	private void call(Runnable calls) {
		runOn(this.calls, calls);
	}

	/**
	 * Return the port of one caller's run: this one where scripts go out without
	 * blocking; with plain calls, one that runs the run's scripts one after another in
	 * the order sent, as one thread's calls would.
	 */
	LockPort forOneRun() {
		return (this.commandTimeout != null || this.inBackground) ? this : new PlainCalls(this);
	}

	/**
	 * Run a task on the executor, or once that is closed on a thread of its own.
	 */
	private static void runOn(ExecutorService executor, Runnable task) {
		try {
			executor.execute(task);
		}
		catch (RejectedExecutionException ex) {
			daemon(task, "distributed-lock-closed").start();
		}
	}

	private static LockException timedOut(LockName name, String operation, @Nullable Duration timeout) {
		return ScriptRunner.failure(name, operation,
				new QueryTimeoutException("Redis command timed out after " + timeout));
	}

	/**
	 * The port of one run with plain calls: its scripts run one after another, on one
	 * thread of the pool at a time.
	 */
	private static final class PlainCalls extends ForwardingPort {

		private final BlockingPort port;

		// Guarded by this: the scripts not yet run, and whether a thread runs them.
		private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

		private boolean calling;

		PlainCalls(BlockingPort port) {
			super(port);
			this.port = port;
		}

		@Override
		public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
			synchronized (this) {
				this.waiting.add(() -> this.port.commands.runForDriver(name, operation, call, reply));
				if (this.calling) {
					return;
				}
				this.calling = true;
			}
			this.port.call(this::runWaiting);
		}

		private void runWaiting() {
			while (true) {
				Runnable next;
				synchronized (this) {
					next = this.waiting.poll();
					if (next == null) {
						this.calling = false;
						return;
					}
				}
				try {
					next.run();
				}
				catch (RuntimeException | Error ex) {
					// A reply's own failure: the run's later calls still run.
				}
			}
		}

	}

	/**
	 * The port of one {@link #runOnCaller} call: the replies of the scripts sent inside
	 * it wait for the caller, who tells them. Those sent later go out as any.
	 */
	private static final class CallerReplies extends ForwardingPort {

		private final BlockingPort port;

		private final LinkedBlockingQueue<Runnable> replies = new LinkedBlockingQueue<>();

		private final Thread caller = Thread.currentThread();

		// The replies not told yet, and whether the caller told what came; both on the
		// caller's thread only.
		private final List<Pending> pending = new ArrayList<>();

		private boolean told;

		CallerReplies(BlockingPort port) {
			super(port);
			this.port = port;
		}

		@Override
		public void run(LockName name, String operation, ScriptCall call, Completion<@Nullable Object> reply) {
			if (Thread.currentThread() != this.caller || this.told) {
				this.port.run(name, operation, call, reply);
				return;
			}
			Pending waited = new Pending(name, operation, reply);
			this.pending.add(waited);
			// Kept for the caller, so a reply may come inside the call: told where it
			// comes, not on the background thread, which may be the caller's.
			this.port.send(name, operation, call, Completion.of((result) -> waited.keep(() -> reply.granted(result)),
					(error) -> waited.keep(() -> reply.failed(error))), null);
		}

		/**
		 * Tell the replies on the caller's thread, each once it came. An interrupt from
		 * before does not stop them; one that comes while the caller waits ends the wait,
		 * as the command timeout does (should its timer be gone with the port): the
		 * replies not come are told as failures, and any that come later are dropped.
		 */
		void tell() {
			this.told = true;
			boolean interrupted = Thread.interrupted();
			Duration timeout = this.port.commandTimeout();
			long deadline = System.nanoTime() + ((timeout != null) ? timeout.toNanos() : 0);
			try {
				for (int left = this.pending.size(); left > 0; left--) {
					Runnable next = (timeout != null)
							? this.replies.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)
							: this.replies.take();
					if (next == null) {
						giveUp(null);
						return;
					}
					next.run();
				}
			}
			catch (InterruptedException ex) {
				interrupted = true;
				giveUp(ex);
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		private void giveUp(@Nullable InterruptedException interrupt) {
			List<Runnable> told = new ArrayList<>();
			// Under the lock that keep takes: a reply kept before is in the queue, and
			// one that comes after finds its script answered.
			synchronized (this) {
				for (Pending waited : this.pending) {
					waited.giveUp(interrupt, this.port.commandTimeout(), told);
				}
				this.replies.drainTo(told);
			}
			told.forEach(Runnable::run);
		}

		/**
		 * A script's reply, kept for the caller, or its failure once the caller gave up.
		 */
		private final class Pending {

			private final AtomicBoolean answered = new AtomicBoolean();

			private final LockName name;

			private final String operation;

			private final Completion<@Nullable Object> reply;

			Pending(LockName name, String operation, Completion<@Nullable Object> reply) {
				this.name = name;
				this.operation = operation;
				this.reply = reply;
			}

			void keep(Runnable answer) {
				synchronized (CallerReplies.this) {
					if (this.answered.compareAndSet(false, true)) {
						CallerReplies.this.replies.add(answer);
					}
				}
			}

			/**
			 * Add this script's failure to what is told, unless its reply was kept.
			 */
			void giveUp(@Nullable InterruptedException interrupt, @Nullable Duration timeout, List<Runnable> told) {
				if (this.answered.compareAndSet(false, true)) {
					Throwable failure = (interrupt != null) ? new LockInterruptedException(this.name, interrupt)
							: timedOut(this.name, this.operation, timeout);
					told.add(() -> this.reply.failed(failure));
				}
			}

		}

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
	 * Refuse new timers, and run those set before, as the reactive port's shared
	 * scheduler does: a command's timeout, a call's bound; the threads stop once they ran
	 * what is queued (the lines' unsubscriptions, waited for a little while).
	 */
	@Override
	public void close() {
		this.timer.shutdown();
		this.subscriber.shutdown();
		this.background.shutdown();
		this.calls.shutdown();
		this.connecting.shutdown();
		try {
			this.subscriber.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * One line's channels on the container. The container confirms each channel of every
	 * {@code SUBSCRIBE} it sends, late, on its task executor: once for this subscription,
	 * and once more after each reconnect. The line hears {@code subscribed} once per full
	 * round of its channels; when the container already listened, the return of
	 * {@code addMessageListener} tells it first, and the round's confirmations that
	 * follow tell it nothing more.
	 */
	private static final class Subscription implements MessageListener, SubscriptionListener {

		private final List<ChannelTopic> topics;

		private final Listener listener;

		private final ChannelRounds rounds;

		/** Whether the line heard of its first round. */
		private final AtomicBoolean told = new AtomicBoolean();

		private volatile boolean cancelled;

		Subscription(List<String> channels, Listener listener) {
			this.topics = channels.stream().map(ChannelTopic::new).toList();
			this.listener = listener;
			this.rounds = new ChannelRounds(channels);
		}

		void subscribe(RedisMessageListenerContainer container) {
			if (this.cancelled) {
				return;
			}
			try {
				container.addMessageListener(this, this.topics);
				// When the container was already listening, a normal return means the
				// subscription is in place.
				if (container.isListening() && this.told.compareAndSet(false, true)) {
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
			int round = this.rounds.confirmed(channel);
			// Every channel is subscribed: the first round tells the line unless the
			// return did; each later one follows a reconnect, when a release may have
			// been missed.
			if (round > 1 || (round == 1 && this.told.compareAndSet(false, true))) {
				this.listener.subscribed();
			}
		}

	}

}
