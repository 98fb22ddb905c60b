package io.github.distributedlock.inmemory;

import java.time.Duration;

import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.autoconfigure.DistributedLockAspectAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.redis.RedisLockTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link InMemoryLockAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class InMemoryLockAutoConfigurationTests {

	// Port 1 on loopback: nothing answers there, so any connection attempt would fail
	// startup.
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, InMemoryLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class, DistributedLockAspectAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=1");

	@Test
	void shouldReplaceTheRedisTemplateWithoutConnectingToRedis() {
		this.runner.withPropertyValues("distributed-lock.in-memory=true", "distributed-lock.wait-time=250ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).getBean(LockTemplate.class).isInstanceOf(InMemoryLockTemplate.class);
				assertThat(context).doesNotHaveBean(RedisLockTemplate.class);
				LockTemplate locks = context.getBean(LockTemplate.class);
				Long token = locks.execute("a", "b", (lock) -> lock.fencingToken());
				assertThat(token).isPositive();
			});
	}

	@Test
	void shouldTakeTheWaitTimeFromTheProperties() {
		this.runner.withPropertyValues("distributed-lock.in-memory=true", "distributed-lock.wait-time=250ms")
			.run((context) -> {
				InMemoryLockTemplate locks = context.getBean(InMemoryLockTemplate.class);
				try (var held = locks.acquire(io.github.distributedlock.LockRequest.of("a", null))) {
					long start = System.nanoTime();
					assertThat(locks.anotherProcess().tryAcquire(io.github.distributedlock.LockRequest.of("a", null)))
						.isEmpty();
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(250),
							Duration.ofSeconds(5));
				}
			});
	}

	@Test
	void shouldNotHaveTheStarterWarnOfItsProperty(CapturedOutput output) {
		// The starter warns of keys under distributed-lock that no property has; it knows
		// this one from this module's configuration metadata.
		this.runner.withPropertyValues("distributed-lock.in-memory=true", "distributed-lock.in-memroy=true")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryLockTemplate.class));
		assertThat(output).contains("'distributed-lock.in-memroy'", "Did you mean 'distributed-lock.in-memory'?")
			.doesNotContain("Property 'distributed-lock.in-memory'");
	}

	@Test
	void shouldBackOffWithoutTheProperty() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(InMemoryLockAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockTemplate.class));
	}

	@Test
	void shouldBackOffFromATemplateOfTheApplication() {
		InMemoryLockTemplate own = new InMemoryLockTemplate();
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(InMemoryLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.in-memory=true")
			.withBean(LockTemplate.class, () -> own)
			.run((context) -> assertThat(context).getBean(LockTemplate.class).isSameAs(own));
	}

}
