package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.autoconfigure.web.LockTimeoutExceptionHandler;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the answer of a Spring MVC or
 * WebFlux application to a lock that was not acquired in time: with
 * {@code distributed-lock.problem-details.enabled=true}, a
 * {@link LockTimeoutExceptionHandler} turns a {@link LockTimeoutException} into an RFC
 * 9457 problem detail with the status {@code distributed-lock.problem-details.status}
 * (409 by default). Off by default, since an application may map the exception already.
 * One handler serves both stacks: both find it as a controller advice. A
 * {@code LockTimeoutExceptionHandler} bean of the application's replaces it.
 */
@AutoConfiguration
@ConditionalOnClass({ ProblemDetail.class, LockTimeoutException.class })
@ConditionalOnWebApplication
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockWebAutoConfiguration {

	private static final String STATUS_PROPERTY = "distributed-lock.problem-details.status";

	@Bean
	@ConditionalOnBooleanProperty("distributed-lock.problem-details.enabled")
	@ConditionalOnMissingBean(LockTimeoutExceptionHandler.class)
	LockTimeoutExceptionHandler lockTimeoutExceptionHandler(DistributedLockProperties properties) {
		int status = properties.getProblemDetails().getStatus();
		if (status < 400 || status > 599) {
			throw new InvalidLockPropertyException(STATUS_PROPERTY, status, "a 4xx or 5xx status, such as 409 or 503");
		}
		return new LockTimeoutExceptionHandler(HttpStatusCode.valueOf(status),
				properties.getProblemDetails().getRetryAfter());
	}

}
