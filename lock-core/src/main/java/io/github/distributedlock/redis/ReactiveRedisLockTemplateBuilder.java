package io.github.distributedlock.redis;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;

/**
 * Builder for {@link ReactiveRedisLockTemplate}:
 * {@link ReactiveRedisLockTemplate#builder(ReactiveRedisConnectionFactory)}. Not
 * thread-safe.
 */
public final class ReactiveRedisLockTemplateBuilder extends LockTemplateBuilder<ReactiveRedisLockTemplateBuilder> {

	final ReactiveRedisConnectionFactory connectionFactory;

	@Nullable ReactiveRedisMessageListenerContainer listenerContainer;

	ReactiveRedisLockTemplateBuilder(ReactiveRedisConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
	}

	/**
	 * Use this listener container for wake-ups instead of creating one; its owner
	 * destroys it.
	 * @param listenerContainer the container
	 * @return this builder
	 */
	public ReactiveRedisLockTemplateBuilder listenerContainer(ReactiveRedisMessageListenerContainer listenerContainer) {
		this.listenerContainer = Objects.requireNonNull(listenerContainer);
		return this;
	}

	/**
	 * Build the template.
	 * @return the template
	 */
	public ReactiveRedisLockTemplate build() {
		return new ReactiveRedisLockTemplate(this);
	}

}
