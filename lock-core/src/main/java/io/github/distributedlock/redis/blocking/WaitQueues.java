package io.github.distributedlock.redis.blocking;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The {@link WaitQueue}s of this JVM, one per awaited lock, reference-counted.
 * <p>
 * A queue of a pub/sub or keyspace lock is subscribed to its channel while anyone waits,
 * and for a short linger after the last waiter leaves, so a hot lock does not churn
 * SUBSCRIBE and UNSUBSCRIBE. Subscription changes run on one thread, which keeps the
 * SUBSCRIBE and UNSUBSCRIBE of a channel in order and never blocks a waiter for longer
 * than it chose to wait (the listener container's own registration wait is unbounded).
 */
public final class WaitQueues implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(WaitQueues.class);

	private final ConcurrentHashMap<String, WaitQueue> queues = new ConcurrentHashMap<>();

	private final @Nullable RedisMessageListenerContainer container;

	private final ScheduledThreadPoolExecutor subscriber;

	private final long lingerNanos;

	private final AtomicInteger waitingThreads = new AtomicInteger();

	private volatile boolean closed;

	public WaitQueues(@Nullable RedisMessageListenerContainer container, long lingerNanos) {
		this.container = container;
		this.lingerNanos = lingerNanos;
		this.subscriber = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "distributed-lock-subscriber");
			thread.setDaemon(true);
			return thread;
		});
		this.subscriber.setRemoveOnCancelPolicy(true);
	}

	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Throw if the queue or the lock service was closed while a thread waited.
	 */
	void checkOpen(WaitQueue queue, LockName name) {
		if (queue.isClosed() || this.closed) {
			throw new LockAccessException(name, "the lock service shut down while waiting", null);
		}
	}

	/**
	 * Count a thread that starts ({@code 1}) or stops ({@code -1}) waiting in line.
	 */
	void waiting(int delta) {
		this.waitingThreads.addAndGet(delta);
	}

	/**
	 * Return how many threads wait in line for a lock now.
	 */
	public int waitingThreads() {
		return this.waitingThreads.get();
	}

	/**
	 * Join the wait queue of a lock, creating and subscribing it if needed.
	 */
	WaitQueue join(LockSpec spec) {
		WaitMode wait = spec.waitMode();
		return this.queues.compute(spec.queueId(), (id, queue) -> {
			if (queue == null) {
				queue = new WaitQueue(id, wait.channels(), wait.keyspaceEvents(), spec.kind().waitsAsReader());
				if (!wait.listens() || this.container == null) {
					queue.subscribed().complete(null);
				}
				else {
					subscribe(queue);
				}
			}
			queue.references++;
			return queue;
		});
	}

	/**
	 * Return a queue that exists and is subscribed, without joining it, or {@code null}.
	 * Lets a waiter on a hot lock read the signal count before its first attempt.
	 */
	@Nullable WaitQueue peek(String queueId) {
		WaitQueue queue = this.queues.get(queueId);
		return (queue != null && queue.subscribed().isDone()) ? queue : null;
	}

	/**
	 * Return the queue of a lock if it exists, subscribed or not, or {@code null}.
	 */
	@Nullable WaitQueue find(String queueId) {
		return this.queues.get(queueId);
	}

	/**
	 * Leave a queue; the queue is removed once nobody was in it for the linger. On a hot
	 * lock the last waiter leaves once per acquisition, so one check per queue stays
	 * scheduled instead of a task per leave: those kept a timer task per acquisition
	 * queued for the whole linger and woke the subscriber thread once each.
	 */
	void leave(WaitQueue queue) {
		this.queues.computeIfPresent(queue.id(), (id, current) -> {
			if (current == queue && --queue.references == 0 && !this.closed) {
				queue.lastLeftNanos = System.nanoTime();
				if (!queue.lingerCheckScheduled) {
					// Set once scheduled: a refused task leaves it to the next leave.
					checkLingerIn(queue, this.lingerNanos);
					queue.lingerCheckScheduled = true;
				}
			}
			return current;
		});
	}

	private void checkLingerIn(WaitQueue queue, long delayNanos) {
		this.subscriber.schedule(() -> endLinger(queue), delayNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Remove the queue if nobody joined it since the linger started; check again at the
	 * end of the linger of whoever left last meanwhile.
	 */
	private void endLinger(WaitQueue queue) {
		boolean[] removed = new boolean[1];
		this.queues.computeIfPresent(queue.id(), (id, current) -> {
			if (current != queue || this.closed) {
				return current;
			}
			if (queue.references > 0) {
				// The next one to leave starts the linger again.
				queue.lingerCheckScheduled = false;
				return current;
			}
			long left = queue.lastLeftNanos + this.lingerNanos - System.nanoTime();
			if (left > 0) {
				checkLingerIn(queue, left);
				return current;
			}
			removed[0] = true;
			return null;
		});
		if (removed[0]) {
			unsubscribe(queue);
		}
	}

	private void subscribe(WaitQueue queue) {
		RedisMessageListenerContainer container = this.container;
		this.subscriber.execute(() -> {
			try {
				if (!this.closed && container != null) {
					container.addMessageListener(queue, topics(queue));
					// The container confirms through onChannelSubscribed; when it was
					// already listening, a normal return means the subscription is in
					// place.
					if (container.isListening()) {
						queue.subscribed().complete(null);
					}
				}
			}
			catch (RuntimeException ex) {
				// Waiters fall back to the holder's lease; the next waiter subscribes
				// again.
				logger.warn("Could not subscribe to " + queue.channels() + "; waiters wake when the lease ends", ex);
				this.queues.remove(queue.id(), queue);
				queue.subscribed().completeExceptionally(ex);
			}
		});
	}

	private void unsubscribe(WaitQueue queue) {
		RedisMessageListenerContainer container = this.container;
		if (container == null || queue.isClosed()) {
			return;
		}
		this.subscriber.execute(() -> {
			try {
				container.removeMessageListener(queue, topics(queue));
			}
			catch (RuntimeException ex) {
				logger.debug("Could not unsubscribe from " + queue.channels(), ex);
			}
		});
	}

	private static List<ChannelTopic> topics(WaitQueue queue) {
		return queue.channels().stream().map(ChannelTopic::new).toList();
	}

	/**
	 * Return how many locks have a wait queue (and, except for polling, a subscription).
	 */
	public int size() {
		return this.queues.size();
	}

	/**
	 * Wake every waiter so it sees the shutdown, and drop every subscription.
	 */
	@Override
	public void close() {
		this.closed = true;
		for (WaitQueue queue : this.queues.values()) {
			queue.close();
			RedisMessageListenerContainer container = this.container;
			if (container != null) {
				try {
					container.removeMessageListener(queue);
				}
				catch (RuntimeException ex) {
					logger.debug("Could not unsubscribe from " + queue.channels(), ex);
				}
			}
		}
		this.queues.clear();
		this.subscriber.shutdownNow();
	}

}
