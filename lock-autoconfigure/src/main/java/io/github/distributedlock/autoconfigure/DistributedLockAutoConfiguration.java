package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockListener;
import io.github.distributedlock.LockOperations;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.WaitStrategy;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplateBuilder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the lock engine: a
 * {@link RedisLockTemplate} on the application's {@link RedisConnectionFactory}, with the
 * {@code distributed-lock.*} defaults, closed when the context stops.
 * <p>
 * The template subscribes through a listener container of its own, whose listeners run on
 * the thread that received the message (Lettuce's I/O thread, or the thread of a Jedis
 * subscription). To have it use another container, define a
 * {@link RedisMessageListenerContainer} bean named
 * {@value #LISTENER_CONTAINER_BEAN_NAME}; its owner then starts and stops it.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ RedisConnectionFactory.class, RedisLockTemplate.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DistributedLockAutoConfiguration.class);

	/**
	 * The name of a {@link RedisMessageListenerContainer} bean for the lock template to
	 * use instead of a container of its own.
	 */
	public static final String LISTENER_CONTAINER_BEAN_NAME = "distributedLockListenerContainer";

	@Bean
	static LockPropertyNamesCheck lockPropertyNamesCheck() {
		return new LockPropertyNamesCheck();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(LockTemplate.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	static class RedisLockTemplateConfiguration {

		@Bean
		RedisLockTemplate lockTemplate(RedisConnectionFactory connectionFactory, DistributedLockProperties properties,
				ObjectProvider<LockListener> listeners,
				@Qualifier(LISTENER_CONTAINER_BEAN_NAME) ObjectProvider<RedisMessageListenerContainer> listenerContainer) {
			LockPropertiesCheck.check(properties);
			LockPropertiesCheck.checkCohorts(properties);
			LockPropertiesCheck.checkReplicaTimeout(properties, connectionFactory);
			RedisMessageListenerContainer container = listenerContainer.getIfAvailable();
			// Only where the template connects at startup anyway, as its Redis version
			// check does: on a container of the application's it talks to Redis only
			// when a lock is taken, and starts without Redis.
			if (container == null || properties.getWaitStrategy() == WaitStrategy.KEYSPACE_EVENTS) {
				EvictionPolicyCheck.check(connectionFactory, properties.isAllowEviction());
			}
			RedisLockTemplateBuilder builder = RedisLockTemplate.builder(connectionFactory)
				.defaults(defaults(properties))
				.keyPrefix(properties.getKeyPrefix())
				.database(RedisDatabase.of(connectionFactory))
				.subscriptionLinger(properties.getSubscriptionLinger())
				.handOff(properties.isHandOff())
				.configureKeyspaceEvents(properties.getKeyspaceEvents().isConfigure())
				.watchdog(properties.getWatchdog().isEnabled())
				.fairWaiterTimeout(properties.getFair().getWaiterTimeout())
				.replicaAcknowledgements(properties.getReplicaAcknowledgements().getReplicas(),
						properties.getReplicaAcknowledgements().getTimeout());
			if (properties.cohortsOn()) {
				builder.cohorts(properties.getCohorts().getMaxHolders(), properties.getCohorts().getMaxTime());
			}
			if (container != null) {
				builder.listenerContainer(container);
			}
			listeners.orderedStream().forEach(builder::listener);
			RedisLockTemplate template = builder.build();
			if (template.cohortStatistics().limits().isOn()) {
				logger.info("Cohorts are on: a release passes a lock in memory to a waiter of this application, "
						+ "up to " + properties.getCohorts().getMaxHolders() + " holders within "
						+ properties.getCohorts().getMaxTime().toMillis() + "ms of the hold taken from Redis; waiters "
						+ "of other processes wait for up to a cohort. Meters: distributed.lock.cohort.*");
			}
			return template;
		}

		@Bean
		LockTemplateShutdown lockTemplateShutdown(LockOperations lockOperations) {
			return new LockTemplateShutdown(lockOperations);
		}

		@Bean
		static LockLostEventPublisher lockLostEventPublisher(ApplicationEventPublisher publisher) {
			return new LockLostEventPublisher(publisher);
		}

		static LockDefaults defaults(DistributedLockProperties properties) {
			return new LockDefaults(properties.getLease(), properties.getWaitTime(), properties.getWaitStrategy(),
					properties.isReentrant(), properties.isProgressAwareTimeout(),
					properties.getPolling().getInterval());
		}

	}

}
