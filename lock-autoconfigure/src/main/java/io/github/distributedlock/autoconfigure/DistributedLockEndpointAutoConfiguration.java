package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.autoconfigure.actuate.ForceReleaseDistributedLocksEndpoint;
import io.github.distributedlock.redis.RedisLockTemplate;

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
 * exists only with {@code distributed-lock.actuator.force-release-enabled=true}.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, RedisLockTemplate.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnAvailableEndpoint(DistributedLocksEndpoint.class)
@ConditionalOnSingleCandidate(RedisLockTemplate.class)
public final class DistributedLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(DistributedLocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "distributed-lock.actuator.force-release-enabled", havingValue = false,
			matchIfMissing = true)
	DistributedLocksEndpoint distributedLocksEndpoint(RedisLockTemplate lockTemplate) {
		return new DistributedLocksEndpoint(lockTemplate);
	}

	@Bean
	@ConditionalOnMissingBean(DistributedLocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "distributed-lock.actuator.force-release-enabled")
	ForceReleaseDistributedLocksEndpoint forceReleaseDistributedLocksEndpoint(RedisLockTemplate lockTemplate) {
		return new ForceReleaseDistributedLocksEndpoint(lockTemplate);
	}

}
