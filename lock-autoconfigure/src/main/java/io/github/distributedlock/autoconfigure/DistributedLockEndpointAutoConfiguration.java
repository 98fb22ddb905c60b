package io.github.distributedlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.LockOperations;
import io.github.distributedlock.ReactiveLockOperations;
import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.autoconfigure.actuate.ForceReleaseDistributedLocksEndpoint;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.redis.core.CohortStatistics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code distributedlocks}
 * actuator endpoint. Boot's exposure and access rules apply; the force-release operation
 * exists only with {@code distributed-lock.actuator.force-release-enabled=true}. The
 * endpoint lists the holds of the reactive template too, when there is one, and what the
 * cohorts of the Redis lock templates did.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, DistributedLockReactiveAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, LockOperations.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnAvailableEndpoint(DistributedLocksEndpoint.class)
@ConditionalOnSingleCandidate(LockOperations.class)
public final class DistributedLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(DistributedLocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "distributed-lock.actuator.force-release-enabled", havingValue = false,
			matchIfMissing = true)
	DistributedLocksEndpoint distributedLocksEndpoint(LockOperations lockOperations,
			ObjectProvider<ReactiveLockOperations> reactiveLockOperations,
			ObjectProvider<RedisLockTemplate> redisLockTemplate,
			ObjectProvider<ReactiveRedisLockTemplate> reactiveRedisLockTemplate) {
		return new DistributedLocksEndpoint(lockOperations, reactiveLockOperations.getIfUnique(),
				cohorts(redisLockTemplate, reactiveRedisLockTemplate));
	}

	@Bean
	@ConditionalOnMissingBean(DistributedLocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "distributed-lock.actuator.force-release-enabled")
	ForceReleaseDistributedLocksEndpoint forceReleaseDistributedLocksEndpoint(LockOperations lockOperations,
			ObjectProvider<ReactiveLockOperations> reactiveLockOperations,
			ObjectProvider<RedisLockTemplate> redisLockTemplate,
			ObjectProvider<ReactiveRedisLockTemplate> reactiveRedisLockTemplate) {
		return new ForceReleaseDistributedLocksEndpoint(lockOperations, reactiveLockOperations.getIfUnique(),
				cohorts(redisLockTemplate, reactiveRedisLockTemplate));
	}

	/**
	 * Return the statistics of the cohorts of the Redis lock templates: the blocking
	 * one's, and the reactive one's when there is one.
	 */
	private static List<CohortStatistics> cohorts(ObjectProvider<RedisLockTemplate> redisLockTemplate,
			ObjectProvider<ReactiveRedisLockTemplate> reactiveRedisLockTemplate) {
		List<CohortStatistics> cohorts = new ArrayList<>();
		redisLockTemplate.ifUnique((template) -> cohorts.add(template.cohortStatistics()));
		reactiveRedisLockTemplate.ifUnique((template) -> cohorts.add(template.cohortStatistics()));
		return cohorts;
	}

}
