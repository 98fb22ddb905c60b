package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.autoconfigure.actuate.LeadersEndpoint;
import io.github.distributedlock.leader.Candidate;
import io.github.distributedlock.leader.LeaderDirectory;
import io.github.distributedlock.leader.LeaderInitiator;
import io.github.distributedlock.leader.LeaderOnlyAdvisor;
import io.github.distributedlock.leader.Leadership;
import io.github.distributedlock.redis.RedisLeaderDirectory;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.micrometer.core.instrument.MeterRegistry;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of leader election: a
 * {@link LeaderInitiator} for each role under {@code distributed-lock.leader.roles} and
 * for each {@link Candidate} bean, started and stopped with the context, the
 * {@link Leadership} over them and the application's own {@code LeaderInitiator} beans,
 * the {@code @LeaderOnly} advisor, a {@link LeaderDirectory} where the leaders publish
 * who they are (on the {@link RedisLockTemplate}), and, when available, leader meters and
 * the {@code leaders} actuator endpoint.
 */
@AutoConfiguration(
		after = { DistributedLockAutoConfiguration.class, DistributedLockObservationAutoConfiguration.class },
		afterName = {
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration" })
@ConditionalOnClass({ MethodInterceptor.class, LeaderInitiator.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockTemplate.class)
@EnableConfigurationProperties(DistributedLockProperties.class)
@Import(DistributedLockAspectAutoConfiguration.AutoProxyRegistrar.class)
public final class DistributedLockLeaderAutoConfiguration {

	@Bean
	ConfiguredLeaderInitiators leaderInitiators(LockTemplate lockTemplate, DistributedLockProperties properties,
			ObjectProvider<Candidate> candidates, ObjectProvider<LeaderInitiator> declared,
			ObjectProvider<LeaderDirectory> directory, ApplicationEventPublisher publisher) {
		return new ConfiguredLeaderInitiators(lockTemplate, properties.getLeader(), candidates.orderedStream().toList(),
				declared, directory.getIfAvailable(), publisher);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(RedisLockTemplate.class)
	LeaderDirectory leaderDirectory(RedisLockTemplate redisLockTemplate) {
		return new RedisLeaderDirectory(redisLockTemplate);
	}

	@Bean
	@ConditionalOnMissingBean
	Leadership leadership(ConfiguredLeaderInitiators leaderInitiators) {
		return Leadership.of(leaderInitiators, leaderInitiators.abstainingRoles());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LeaderOnlyAdvisor leaderOnlyAdvisor(ObjectProvider<ConfiguredLeaderInitiators> leaderInitiators) {
		// Looked up on the first call: advisors are created before most beans.
		return new LeaderOnlyAdvisor(() -> leaderInitiators.getObject().iterator(),
				() -> leaderInitiators.getObject().abstainingRoles().iterator());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaderMetrics leaderMetrics(MeterRegistry meterRegistry) {
			return new LeaderMetrics(meterRegistry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	@ConditionalOnAvailableEndpoint(LeadersEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeadersEndpoint leadersEndpoint(Leadership leadership, LockTemplate lockTemplate,
				ObjectProvider<LeaderDirectory> directory) {
			return new LeadersEndpoint(leadership, lockTemplate, directory.getIfAvailable());
		}

	}

}
