package io.github.distributedlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockOperations;
import io.github.distributedlock.ReactiveLockOperations;
import io.github.distributedlock.observation.LockGauges;
import io.github.distributedlock.observation.LockMetrics;
import io.github.distributedlock.observation.LockObservationConvention;
import io.github.distributedlock.observation.ObservedLockTemplate;
import io.github.distributedlock.observation.ObservedReactiveLockTemplate;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.core.CohortStatistics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import reactor.core.publisher.Flux;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of lock metrics and observations.
 * <p>
 * With a {@link MeterRegistry} bean: {@link LockMetrics}, which the lock template and the
 * aspect report to (the meters of every scope of a {@code @DistributedLock} method exist,
 * at zero, from the start), and the {@link LockGauges} of the template, a
 * {@code MeterBinder} that Boot's metrics auto-configuration binds to the registries, and
 * the meters of the template's cohorts, unless {@code distributed-lock.cohorts.enabled}
 * is false (none where the template has them off). With an {@link ObservationRegistry}
 * bean: an {@link ObservedLockTemplate} around the {@link RedisLockTemplate}, as the
 * primary {@code LockTemplate}, which the aspect uses too; {@code RedisLockTemplate} can
 * still be injected as such. Likewise, with Reactor, an
 * {@link ObservedReactiveLockTemplate} around the {@link ReactiveRedisLockTemplate}, as
 * the primary {@code ReactiveLockTemplate}.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, DistributedLockReactiveAutoConfiguration.class },
		afterName = {
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnClass(RedisLockTemplate.class)
public final class DistributedLockObservationAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockMetrics distributedLockMetrics(MeterRegistry meterRegistry) {
			return new LockMetrics(meterRegistry);
		}

		@Bean
		@ConditionalOnSingleCandidate(LockOperations.class)
		@ConditionalOnMissingBean
		LockGauges distributedLockGauges(LockOperations lockOperations) {
			return new LockGauges(lockOperations);
		}

		@Bean
		@ConditionalOnSingleCandidate(RedisLockTemplate.class)
		@ConditionalOnBooleanProperty(name = "distributed-lock.cohorts.enabled", matchIfMissing = true)
		@ConditionalOnMissingBean
		CohortMetrics distributedLockCohortMetrics(RedisLockTemplate lockTemplate) {
			return new CohortMetrics(List.of(lockTemplate.cohortStatistics()));
		}

		/**
		 * With Reactor, the gauges count the reactive template's holds and waiters too,
		 * and the cohort meters its cohorts. A member class, so that it is considered
		 * before the beans above.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(Flux.class)
		static class ReactiveMetricsConfiguration {

			@Bean
			@ConditionalOnSingleCandidate(LockOperations.class)
			@ConditionalOnMissingBean
			LockGauges distributedLockGaugesWithReactive(LockOperations lockOperations,
					ObjectProvider<ReactiveLockOperations> reactiveLockOperations) {
				return new LockGauges(lockOperations, reactiveLockOperations.getIfUnique());
			}

			/**
			 * The cohorts of the reactive template, counted with the blocking one's.
			 */
			@Bean
			@ConditionalOnSingleCandidate(ReactiveRedisLockTemplate.class)
			@ConditionalOnBooleanProperty(name = "distributed-lock.cohorts.enabled", matchIfMissing = true)
			@ConditionalOnMissingBean
			CohortMetrics distributedLockCohortMetricsWithReactive(ReactiveRedisLockTemplate reactiveLockTemplate,
					ObjectProvider<RedisLockTemplate> lockTemplate) {
				List<CohortStatistics> statistics = new ArrayList<>();
				lockTemplate.ifUnique((template) -> statistics.add(template.cohortStatistics()));
				statistics.add(reactiveLockTemplate.cohortStatistics());
				return new CohortMetrics(statistics);
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ObservationRegistry.class)
	@ConditionalOnBean(ObservationRegistry.class)
	static class ObservationConfiguration {

		@Bean
		@Primary
		@ConditionalOnSingleCandidate(RedisLockTemplate.class)
		@ConditionalOnMissingBean
		ObservedLockTemplate observedLockTemplate(RedisLockTemplate lockTemplate,
				ObservationRegistry observationRegistry, ObjectProvider<LockObservationConvention> convention) {
			return new ObservedLockTemplate(lockTemplate, observationRegistry, convention.getIfAvailable());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ObservationRegistry.class, Flux.class })
	@ConditionalOnBean(ObservationRegistry.class)
	static class ReactiveObservationConfiguration {

		@Bean
		@Primary
		@ConditionalOnSingleCandidate(ReactiveRedisLockTemplate.class)
		@ConditionalOnMissingBean
		ObservedReactiveLockTemplate observedReactiveLockTemplate(ReactiveRedisLockTemplate reactiveLockTemplate,
				ObservationRegistry observationRegistry, ObjectProvider<LockObservationConvention> convention) {
			return new ObservedReactiveLockTemplate(reactiveLockTemplate, observationRegistry,
					convention.getIfAvailable());
		}

	}

}
