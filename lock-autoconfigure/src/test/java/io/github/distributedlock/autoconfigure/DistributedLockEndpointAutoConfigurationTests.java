package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.autoconfigure.actuate.ForceReleaseDistributedLocksEndpoint;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockEndpointAutoConfiguration}.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockEndpointAutoConfigurationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server);
	}

	@Test
	void shouldConfigureTheReadOnlyEndpointWhenExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks")
			.run((context) -> assertThat(context).hasSingleBean(DistributedLocksEndpoint.class)
				.doesNotHaveBean(ForceReleaseDistributedLocksEndpoint.class));
	}

	@Test
	void shouldLetTheEndpointForceReleaseWhenForceReleaseIsEnabled() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks",
					"distributed-lock.actuator.force-release-enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(DistributedLocksEndpoint.class)
				.hasSingleBean(ForceReleaseDistributedLocksEndpoint.class));
	}

	@Test
	void shouldNotConfigureTheEndpointWhenNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(DistributedLocksEndpoint.class));
	}

	@Test
	void shouldNotConfigureTheEndpointWhenAccessIsNone() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks",
					"management.endpoint.distributedlocks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(DistributedLocksEndpoint.class));
	}

	@Test
	void shouldNotConfigureTheEndpointWhenActuatorIsMissing() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistributedLocksEndpoint.class));
	}

}
