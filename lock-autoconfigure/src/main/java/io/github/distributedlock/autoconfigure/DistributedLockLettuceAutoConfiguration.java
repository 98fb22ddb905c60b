package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.redis.RedisLockTemplate;
import io.lettuce.core.resource.ClientResources;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} that caps the reconnect delay of the
 * application's Lettuce client, so that lock calls work again soon after Redis is back.
 * <p>
 * Lettuce waits longer after each failed reconnect attempt, up to 30 s, so after an
 * outage of some seconds every lock call kept failing for seconds more while Redis was
 * already back. The cap is applied to the {@link ClientResources} that Boot builds, and
 * so to every connection of the application's Lettuce client. It backs off when the
 * application defines {@link ClientResources} of its own, and applies only where Boot's
 * Redis connection uses Lettuce.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ ClientResources.class, ClientResourcesBuilderCustomizer.class, RedisLockTemplate.class })
@ConditionalOnProperty(name = "spring.data.redis.client-type", havingValue = "lettuce", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "distributed-lock.reconnect-delay.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockLettuceAutoConfiguration {

	// Before Boot's Redis configuration, so that only the application's own
	// ClientResources are seen here, not the one Boot is about to define.
	@Bean
	@ConditionalOnMissingBean(ClientResources.class)
	LettuceReconnectDelay distributedLockReconnectDelay(DistributedLockProperties properties) {
		LockPropertiesCheck.checkReconnectDelay(properties);
		return new LettuceReconnectDelay(properties.getReconnectDelay().getMax());
	}

}
