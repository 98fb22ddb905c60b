package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockLettuceAutoConfiguration}: the cap on the reconnect
 * delay of the application's Lettuce client. Nothing here connects to Redis.
 */
class DistributedLockLettuceAutoConfigurationTests {

	/** An attempt far into an outage, where Lettuce's own delay has reached 30 s. */
	private static final long LATE_ATTEMPT = 30;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockLettuceAutoConfiguration.class));

	@Test
	void shouldCapTheReconnectDelayOfTheApplicationsClientResources() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ClientResourcesBuilderCustomizer.class);
			assertThat(lateDelay(context.getBean(ClientResources.class))).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void shouldCapTheReconnectDelayAtTheConfiguredMaximum() {
		this.contextRunner.withPropertyValues("distributed-lock.reconnect-delay.max=250ms")
			.run((context) -> assertThat(lateDelay(context.getBean(ClientResources.class)))
				.isEqualTo(Duration.ofMillis(250)));
	}

	@Test
	void shouldLeaveLettucesDelayWhenTheCapIsTurnedOff() {
		this.contextRunner.withPropertyValues("distributed-lock.reconnect-delay.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(ClientResourcesBuilderCustomizer.class);
			assertThat(lateDelay(context.getBean(ClientResources.class)))
				.isEqualTo(Delay.exponential().createDelay(LATE_ATTEMPT));
		});
	}

	@Test
	void shouldLeaveLettucesDelayWhenLocksAreDisabled() {
		this.contextRunner.withPropertyValues("distributed-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClientResourcesBuilderCustomizer.class));
	}

	@Test
	void shouldBackOffWhenTheUserDefinesClientResources() {
		this.contextRunner
			.withBean("userClientResources", ClientResources.class, () -> DefaultClientResources.builder().build(),
					(definition) -> definition.setDestroyMethodName("shutdown"))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ClientResourcesBuilderCustomizer.class);
				assertThat(context.getBean(ClientResources.class)).isSameAs(context.getBean("userClientResources"));
				assertThat(lateDelay(context.getBean(ClientResources.class)))
					.isEqualTo(Delay.exponential().createDelay(LATE_ATTEMPT));
			});
	}

	@Test
	void shouldConfigureNothingWhenTheApplicationUsesJedis() {
		this.contextRunner.withPropertyValues("spring.data.redis.client-type=jedis")
			.run((context) -> assertThat(context).doesNotHaveBean(ClientResourcesBuilderCustomizer.class));
	}

	@Test
	void shouldConfigureNothingWhenLettuceIsMissing() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.lettuce.core"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ClientResourcesBuilderCustomizer.class));
	}

	@Test
	void shouldRefuseAMaximumThatIsNotPositive() {
		this.contextRunner.withPropertyValues("distributed-lock.reconnect-delay.max=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockPropertyException.class)
				.hasMessageContaining("distributed-lock.reconnect-delay.max"));
	}

	private static Duration lateDelay(ClientResources resources) {
		return resources.reconnectDelay().createDelay(LATE_ATTEMPT);
	}

}
