package io.github.distributedlock.redis.server;

import io.github.distributedlock.redis.server.RedisVersion;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The pub/sub listener container waiters are woken through: the application's, which its
 * owner starts and stops, or the template's own, created, started and destroyed here;
 * none without pub/sub.
 */
public final class ListenerContainerLifecycle implements AutoCloseable {

	private final @Nullable RedisMessageListenerContainer container;

	private final boolean owned;

	private ListenerContainerLifecycle(@Nullable RedisMessageListenerContainer container, boolean owned) {
		this.container = container;
		this.owned = owned;
	}

	/**
	 * Use the given container, or create one if pub/sub is wanted, or none.
	 * @throws IllegalStateException if a container is created and Redis is older than 6.2
	 */
	public static ListenerContainerLifecycle of(RedisConnectionFactory connectionFactory,
			@Nullable RedisMessageListenerContainer given, boolean pubSub) {
		if (given != null) {
			return new ListenerContainerLifecycle(given, false);
		}
		if (pubSub) {
			// Only here, where the template connects at startup anyway: otherwise it
			// talks to Redis only when a lock is taken.
			RedisVersion.check(connectionFactory);
			return new ListenerContainerLifecycle(newContainer(connectionFactory), true);
		}
		return new ListenerContainerLifecycle(null, false);
	}

	private static RedisMessageListenerContainer newContainer(RedisConnectionFactory connectionFactory) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(connectionFactory);
		// Listeners never block, so they run on the thread that received the message,
		// not on a new thread per message.
		container.setTaskExecutor(Runnable::run);
		// Jedis subscribes by reading on the calling thread until the subscription
		// ends, so it needs a thread of its own; Lettuce never uses it.
		SimpleAsyncTaskExecutor subscriptions = new SimpleAsyncTaskExecutor("distributed-lock-subscription-");
		subscriptions.setDaemon(true);
		container.setSubscriptionExecutor(subscriptions);
		ExponentialBackOff backOff = new ExponentialBackOff(100, 2);
		backOff.setMaxInterval(2000);
		container.setRecoveryBackoff(backOff);
		// Spring's 2 s can pass on a busy machine's first connection.
		container.setMaxSubscriptionRegistrationWaitingTime(5000);
		container.setBeanName("distributedLockListenerContainer");
		container.afterPropertiesSet();
		return container;
	}

	public @Nullable RedisMessageListenerContainer container() {
		return this.container;
	}

	/**
	 * Subscribe for good to a channel, which keeps the container listening between waits
	 * (removing its last listener would close the connection), and start the container if
	 * it is the template's own.
	 */
	public void start(String keepAliveChannel) {
		if (this.container == null) {
			return;
		}
		this.container.addMessageListener((message, pattern) -> {
		}, new ChannelTopic(keepAliveChannel));
		if (this.owned) {
			this.container.start();
		}
	}

	/**
	 * Destroy the container if it is the template's own.
	 */
	@Override
	public void close() {
		if (this.container != null && this.owned) {
			try {
				this.container.destroy();
			}
			catch (Exception ex) {
				// Closing anyway.
			}
		}
	}

}
