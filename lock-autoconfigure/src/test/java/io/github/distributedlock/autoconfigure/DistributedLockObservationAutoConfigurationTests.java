package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.observation.LockGauges;
import io.github.distributedlock.observation.LockMetrics;
import io.github.distributedlock.observation.ObservedLockTemplate;
import io.github.distributedlock.observation.ObservedReactiveLockTemplate;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockObservationAutoConfiguration}.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockObservationAutoConfigurationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server);
	}

	@Test
	void shouldReportToLockMetricsWhenThereIsAMeterRegistry() {
		// Boot's metrics auto-configuration binds the MeterBinder beans, LockGauges among
		// them.
		this.contextRunner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LockMetrics.class).hasSingleBean(LockGauges.class);
				context.getBean(LockTemplate.class).execute("metered", "1", (lock) -> null);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("distributed.lock.acquired").tag("lock.scope", "metered").counter().count())
					.isEqualTo(1);
				assertThat(registry.get("distributed.lock.held").gauge().value()).isZero();
			});
	}

	@Test
	void shouldCountReactiveHoldsInTheGaugesWhenThereIsAReactiveTemplate() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					DistributedLockReactiveAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LockGauges.class);
				ReactiveLockHandle held = context.getBean(ReactiveLockTemplate.class)
					.acquire(LockRequest.of("metered", "reactive"))
					.block(Duration.ofSeconds(10));
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				try (LockHandle blocking = context.getBean(LockTemplate.class)
					.acquire(LockRequest.of("metered", "blocking"))) {
					assertThat(registry.get("distributed.lock.held").gauge().value()).isEqualTo(2);
				}
				held.release().block(Duration.ofSeconds(10));
				assertThat(registry.get("distributed.lock.held").gauge().value()).isZero();
			});
	}

	@Test
	void shouldInstrumentNothingWhenThereIsNoRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(LockMetrics.class)
				.doesNotHaveBean(LockGauges.class)
				.doesNotHaveBean(ObservedLockTemplate.class);
			assertThat(context.getBean(LockTemplate.class)).isInstanceOf(RedisLockTemplate.class);
		});
	}

	@Test
	void shouldObserveLockTemplateAndKeepRedisLockTemplateInjectableWhenThereIsAnObservationRegistry() {
		this.contextRunner.withBean(ObservationRegistry.class, TestObservationRegistry::create)
			.withBean(Service.class)
			.run((context) -> {
				assertThat(context.getBean(LockTemplate.class)).isInstanceOf(ObservedLockTemplate.class);
				assertThat(context).hasSingleBean(RedisLockTemplate.class);
				assertThat(((ObservedLockTemplate) context.getBean(LockTemplate.class)).getDelegate())
					.isSameAs(context.getBean(RedisLockTemplate.class));
				context.getBean(Service.class).run("9");
				TestObservationRegistry registry = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
				assertThat(registry).hasSingleObservationThat()
					.hasNameEqualTo("distributed.lock")
					.hasLowCardinalityKeyValue("lock.scope", "observed")
					.hasHighCardinalityKeyValue("lock.key", "9")
					.hasHighCardinalityKeyValue("lock.origin", "Service.run");
			});
	}

	@Test
	void shouldObserveTheReactiveTemplateAndKeepItsEngineInjectableWhenThereIsAnObservationRegistry() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributedLockReactiveAutoConfiguration.class))
			.withBean(ObservationRegistry.class, TestObservationRegistry::create)
			.withBean(ReactiveService.class)
			.run((context) -> {
				ReactiveLockTemplate template = context.getBean(ReactiveLockTemplate.class);
				assertThat(template).isInstanceOf(ObservedReactiveLockTemplate.class);
				assertThat(((ObservedReactiveLockTemplate) template).getDelegate())
					.isSameAs(context.getBean(ReactiveRedisLockTemplate.class));
				assertThat(context.getBean(ReactiveService.class).run("7").block()).isEqualTo("ran 7");
				TestObservationRegistry registry = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
				assertThat(registry).hasSingleObservationThat()
					.hasNameEqualTo("distributed.lock")
					.hasLowCardinalityKeyValue("lock.scope", "observed_reactive")
					.hasLowCardinalityKeyValue("lock.outcome", "acquired")
					.hasHighCardinalityKeyValue("lock.key", "7")
					.hasHighCardinalityKeyValue("lock.origin", "ReactiveService.run");
			});
	}

	@Test
	void shouldReportReactiveLocksToLockMetricsWhenThereIsAMeterRegistry() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					DistributedLockReactiveAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ObservedReactiveLockTemplate.class);
				context.getBean(ReactiveLockTemplate.class)
					.locked(LockRequest.of("metered_reactive", "1"), Mono.just("done"))
					.block();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("distributed.lock.acquired")
					.tag("lock.scope", "metered_reactive")
					.counter()
					.count()).isEqualTo(1);
				assertThat(registry.get("distributed.lock.hold").tag("lock.scope", "metered_reactive").timer().count())
					.isEqualTo(1);
			});
	}

	@Test
	void shouldNotObserveTheReactiveTemplateWhenThereIsNoRegistry() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributedLockReactiveAutoConfiguration.class))
			.run((context) -> assertThat(context.getBean(ReactiveLockTemplate.class))
				.isInstanceOf(ReactiveRedisLockTemplate.class));
	}

	@Test
	void shouldInstrumentNothingWhenMicrometerIsMissing() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class, ObservationRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LockMetrics.class)
				.doesNotHaveBean(ObservedLockTemplate.class));
	}

	static class Service {

		@DistributedLock(scope = "observed", key = "#id")
		public void run(String id) {
		}

	}

	static class ReactiveService {

		@DistributedLock(scope = "observed_reactive", key = "#id")
		public Mono<String> run(String id) {
			return Mono.just("ran " + id);
		}

	}

}
