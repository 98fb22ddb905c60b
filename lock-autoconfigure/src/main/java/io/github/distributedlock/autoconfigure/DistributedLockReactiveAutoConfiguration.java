package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockListener;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.ReactiveRedisLockTemplateBuilder;
import reactor.core.publisher.Flux;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the reactive lock engine: a
 * {@link ReactiveRedisLockTemplate} on the application's
 * {@link ReactiveRedisConnectionFactory}, when Reactor is on the class path, with the
 * {@code distributed-lock.*} defaults, key prefix, hand-off and watchdog settings of the
 * blocking template, so that the two exclude each other, and the same
 * {@link LockListener} beans (metrics, lost-lease events). Closed when the context stops.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration" })
@ConditionalOnClass({ ReactiveRedisConnectionFactory.class, Flux.class, ReactiveRedisLockTemplate.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ReactiveLockTemplate.class)
	@ConditionalOnSingleCandidate(ReactiveRedisConnectionFactory.class)
	ReactiveRedisLockTemplate reactiveLockTemplate(ReactiveRedisConnectionFactory connectionFactory,
			DistributedLockProperties properties, ObjectProvider<LockListener> listeners) {
		LockPropertiesCheck.check(properties);
		LockPropertiesCheck.checkCohorts(properties);
		LockPropertiesCheck.checkReplicaTimeout(properties, connectionFactory);
		ReactiveRedisLockTemplateBuilder builder = ReactiveRedisLockTemplate.builder(connectionFactory)
			.defaults(DistributedLockAutoConfiguration.RedisLockTemplateConfiguration.defaults(properties))
			.keyPrefix(properties.getKeyPrefix())
			// The same factory serves both APIs with Lettuce; a reactive-only one uses
			// database 0.
			.database((connectionFactory instanceof RedisConnectionFactory blocking) ? RedisDatabase.of(blocking) : 0)
			.configureKeyspaceEvents(properties.getKeyspaceEvents().isConfigure())
			.subscriptionLinger(properties.getSubscriptionLinger())
			.handOff(properties.isHandOff())
			.fairWaiterTimeout(properties.getFair().getWaiterTimeout())
			.watchdog(properties.getWatchdog().isEnabled());
		int replicas = properties.getReplicaAcknowledgements().getReplicas();
		if (replicas > 0) {
			// The check runs on the factory's blocking side, as Lettuce's has.
			if (!(connectionFactory instanceof RedisConnectionFactory)) {
				throw new InvalidLockPropertyException("distributed-lock.replica-acknowledgements.replicas", replicas,
						"0 with a reactive connection factory that is not also a RedisConnectionFactory (as "
								+ "LettuceConnectionFactory is): the replica check runs on its blocking side");
			}
			builder.replicaAcknowledgements(replicas, properties.getReplicaAcknowledgements().getTimeout());
		}
		if (properties.cohortsOn()) {
			builder.cohorts(properties.getCohorts().getMaxHolders(), properties.getCohorts().getMaxTime());
		}
		listeners.orderedStream().forEach(builder::listener);
		return builder.build();
	}

}
