package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.core.Cohort;
import io.github.distributedlock.redis.core.CohortLimits;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Builder for {@link RedisLockTemplate}:
 * {@link RedisLockTemplate#builder(RedisConnectionFactory)}. Not thread-safe.
 */
public final class RedisLockTemplateBuilder extends LockTemplateBuilder<RedisLockTemplateBuilder> {

	/**
	 * The most holders {@link #cohorts(int, Duration)} takes: the tokens one hold may
	 * reserve.
	 */
	public static final int MAX_COHORT_HOLDERS = CohortLimits.MAX_HOLDERS;

	/**
	 * How many times a cohort's time limit an acquisition's lease must be for the lock to
	 * be passed.
	 */
	public static final int COHORT_LEASE_PER_TIME = Cohort.LEASE_PER_TIME_LIMIT;

	final RedisConnectionFactory connectionFactory;

	@Nullable RedisMessageListenerContainer listenerContainer;

	boolean pubSub = true;

	RedisLockTemplateBuilder(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
	}

	/**
	 * Use this listener container for wake-ups instead of creating one. It must be
	 * started by its owner (in Spring, as a bean it is).
	 * @param listenerContainer the container
	 * @return this builder
	 */
	public RedisLockTemplateBuilder listenerContainer(RedisMessageListenerContainer listenerContainer) {
		this.listenerContainer = listenerContainer;
		return this;
	}

	/**
	 * Set whether to use pub/sub at all. Without it, only {@link WaitStrategy#POLLING}
	 * works, and the default strategy must be polling.
	 * @param pubSub whether pub/sub is available
	 * @return this builder
	 */
	public RedisLockTemplateBuilder pubSub(boolean pubSub) {
		this.pubSub = pubSub;
		return this;
	}

	/**
	 * Build and start the template.
	 * @return the template
	 * @throws IllegalStateException if the template starts its own pub/sub listener
	 * container (the default) and Redis answers {@code INFO} with a version older than
	 * 6.2, which the lock scripts need
	 */
	public RedisLockTemplate build() {
		if (this.listenerContainer == null && !this.pubSub && this.defaults.waitStrategy() != WaitStrategy.POLLING) {
			throw new IllegalStateException("Without pub/sub the default wait strategy must be POLLING, but was "
					+ this.defaults.waitStrategy());
		}
		return new RedisLockTemplate(this);
	}

}
