package io.github.distributedlock.redis.reactive;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributedlock.redis.core.LockSpec;
import io.github.distributedlock.redis.core.WaitMode;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;

/**
 * The {@link ReactiveWaitLine}s of a reactive template, one per lock with waiters, each
 * subscribed to its lock's channels (those of its {@link WaitMode}, as the blocking
 * {@code WaitQueues} subscribe them) through one
 * {@link ReactiveRedisMessageListenerContainer} subscription for as long as it has
 * waiters, plus a short linger so that a hot lock does not churn subscriptions.
 * Thread-safe.
 */
public final class ReactiveWaitLines {

	private static final Log logger = LogFactory.getLog(ReactiveWaitLines.class);

	private final ConcurrentHashMap<String, ReactiveWaitLine> lines = new ConcurrentHashMap<>();

	private final Supplier<ReactiveRedisMessageListenerContainer> container;

	private final Scheduler timer;

	private final long lingerNanos;

	private final AtomicInteger waiting = new AtomicInteger();

	private volatile boolean closed;

	/**
	 * @param container supplies the container to subscribe with, when first needed
	 */
	public ReactiveWaitLines(Supplier<ReactiveRedisMessageListenerContainer> container, Scheduler timer,
			long lingerNanos) {
		this.container = container;
		this.timer = timer;
		this.lingerNanos = lingerNanos;
	}

	/**
	 * Take a reference on the lock's line, subscribing its channel if it is new.
	 */
	ReactiveWaitLine join(LockSpec spec) {
		this.waiting.incrementAndGet();
		ReactiveWaitLine line = this.lines.compute(spec.queueId(), (id, existing) -> {
			ReactiveWaitLine joined = (existing != null) ? existing
					: new ReactiveWaitLine(id, spec.waitMode().keyspaceEvents(), spec.kind().waitsAsReader());
			joined.references++;
			return joined;
		});
		if (!line.isClosed()) {
			subscribe(line, spec);
		}
		if (this.closed) {
			line.close();
		}
		return line;
	}

	/**
	 * Return whether the lock's line is here and subscribed: waited for a moment ago, so
	 * likely taken.
	 */
	boolean isHot(LockSpec spec) {
		ReactiveWaitLine line = this.lines.get(spec.queueId());
		return line != null && line.isSubscribed() && !line.isClosed();
	}

	private void subscribe(ReactiveWaitLine line, LockSpec spec) {
		if (!spec.waitMode().listens()) {
			// Nothing to hear: the waiters poll.
			if (!line.isSubscribed()) {
				line.subscribed();
			}
			return;
		}
		synchronized (line) {
			if (line.hasSubscription()) {
				return;
			}
			List<ChannelTopic> topics = spec.waitMode().channels().stream().map(ChannelTopic::of).toList();
			AtomicInteger unconfirmed = new AtomicInteger(topics.size());
			SubscriptionListener listener = new SubscriptionListener() {

				@Override
				public void onChannelSubscribed(byte[] channel, long count) {
					// Subscribed once every channel is; a later confirmation (after a
					// reconnect) signals, as a release may have been missed.
					if (unconfirmed.decrementAndGet() <= 0) {
						line.subscribed();
					}
				}

			};
			try {
				line.subscription(this.container.get()
					.receive(topics, listener)
					.subscribe((message) -> line.onMessage(message.getMessage().getBytes(StandardCharsets.UTF_8)),
							(error) -> lost(line, error)));
			}
			catch (RuntimeException ex) {
				// A container that cannot subscribe at all (destroyed, say): the waiters
				// are bounded as without messages, and a later waiter tries again.
				lost(line, ex);
			}
		}
	}

	private static void lost(ReactiveWaitLine line, Throwable error) {
		logger.warn("Lost the subscription of " + line.id() + "; its waiters try again when the holder's lease ends",
				error);
		line.lostSubscription();
	}

	/**
	 * Drop a reference; the line is removed once nobody was in it for the linger. On a
	 * hot lock the last waiter leaves once per acquisition, so one check per line stays
	 * scheduled instead of a timer task per leave, which the next join cancelled.
	 */
	void leave(ReactiveWaitLine line) {
		this.waiting.decrementAndGet();
		this.lines.computeIfPresent(line.id(), (id, existing) -> {
			if (existing != line) {
				return existing;
			}
			if (--existing.references == 0) {
				if (this.closed) {
					existing.unsubscribe();
					return null;
				}
				existing.lastLeftNanos = System.nanoTime();
				if (!existing.lingerCheckScheduled) {
					// Set once scheduled: a refused task leaves it to the next leave.
					checkLingerIn(existing, this.lingerNanos);
					existing.lingerCheckScheduled = true;
				}
			}
			return existing;
		});
	}

	private void checkLingerIn(ReactiveWaitLine line, long delayNanos) {
		this.timer.schedule(() -> endLinger(line), delayNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Remove the line if nobody joined it since the linger started; check again at the
	 * end of the linger of whoever left last meanwhile.
	 */
	private void endLinger(ReactiveWaitLine line) {
		this.lines.computeIfPresent(line.id(), (id, existing) -> {
			if (existing != line) {
				return existing;
			}
			if (existing.references > 0) {
				// The next one to leave starts the linger again.
				existing.lingerCheckScheduled = false;
				return existing;
			}
			long left = existing.lastLeftNanos + this.lingerNanos - System.nanoTime();
			if (left > 0 && !this.closed) {
				checkLingerIn(existing, left);
				return existing;
			}
			existing.unsubscribe();
			return null;
		});
	}

	/**
	 * Return how many acquisitions wait in a line.
	 */
	public int waiting() {
		return this.waiting.get();
	}

	public int size() {
		return this.lines.size();
	}

	public void close() {
		this.closed = true;
		this.lines.values().forEach(ReactiveWaitLine::close);
	}

}
