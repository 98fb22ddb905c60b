package io.github.distributedlock.autoconfigure;

import java.util.List;

import io.github.distributedlock.DistributedLock;
import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The meters of annotated methods, in an application with a meter registry and an
 * observation registry.
 */
@ExtendWith(RedisServerExtension.class)
class AspectMetricsTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withBean(ObservationRegistry.class, TestObservationRegistry::create)
			.withBean(Reports.class);
	}

	@Test
	void shouldCountAcquisitionsTimeoutsSkipsAndFallbacksByScope() {
		this.contextRunner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			assertThat(reports.skippable()).isEqualTo("ran");
			assertThat(reports.withFallback()).isEqualTo("ran");
			RedisLockTemplate otherProcess = RedisLockTemplate.builder(context.getBean(RedisConnectionFactory.class))
				.build();
			try (LockHandle held = otherProcess.acquire(LockRequest.of("reports", null))) {
				assertThat(reports.skippable()).isNull();
				assertThat(reports.skippable()).isNull();
				assertThat(reports.withFallback()).isEqualTo("fallback");
			}
			finally {
				otherProcess.close();
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(count(registry, "distributed.lock.acquired")).isEqualTo(2);
			assertThat(count(registry, "distributed.lock.timeouts")).isEqualTo(3);
			assertThat(count(registry, "distributed.lock.skipped")).isEqualTo(2);
			assertThat(count(registry, "distributed.lock.fallbacks")).isEqualTo(1);
			assertThat(registry.get("distributed.lock.wait").tag("lock.scope", "reports").timer().count()).isEqualTo(2);
			assertThat(registry.get("distributed.lock.hold").tag("lock.scope", "reports").timer().count()).isEqualTo(2);
			assertThat(registry.get("distributed.lock.held").gauge().value()).isZero();
			assertThat(registry.get("distributed.lock.waiting").gauge().value()).isZero();
			TestObservationRegistry observations = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
			TestObservationRegistryAssert.assertThat(observations)
				.hasNumberOfObservationsWithNameEqualTo("distributed.lock", 5);
		});
	}

	@Test
	void shouldRegisterEveryMeterOfAnAnnotatedScopeAtZeroWhenTheContextStarts() {
		this.contextRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (String counter : List.of("acquired", "timeouts", "skipped", "fallbacks", "leases.lost")) {
				assertThat(registry.find("distributed.lock." + counter).tag("lock.scope", "reports").counter())
					.as(counter)
					.isNotNull()
					.extracting(Counter::count)
					.isEqualTo(0.0);
			}
			for (String timer : List.of("wait", "hold")) {
				assertThat(registry.find("distributed.lock." + timer).tag("lock.scope", "reports").timer()).as(timer)
					.isNotNull()
					.extracting(Timer::count)
					.isEqualTo(0L);
			}
		});
	}

	@Test
	void shouldRegisterTheMetersOfABeanCreatedAfterStartupWhenItIsCreated() {
		this.contextRunner.withBean(LazyExports.class, LazyExports::new, (definition) -> definition.setLazyInit(true))
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("distributed.lock.skipped").tag("lock.scope", "exports").counter()).isNull();
				context.getBean(LazyExports.class);
				assertThat(registry.find("distributed.lock.skipped").tag("lock.scope", "exports").counter()).isNotNull()
					.extracting(Counter::count)
					.isEqualTo(0.0);
			});
	}

	private static double count(MeterRegistry registry, String name) {
		return registry.get(name).tag("lock.scope", "reports").counter().count();
	}

	static class Reports {

		@DistributedLock(scope = "reports", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public String skippable() {
			return "ran";
		}

		@DistributedLock(scope = "reports", waitTime = 0, onTimeout = OnTimeout.FALLBACK, fallback = "cached")
		public String withFallback() {
			return "ran";
		}

		String cached() {
			return "fallback";
		}

	}

	static class LazyExports {

		@DistributedLock(scope = "exports", waitTime = 0, onTimeout = OnTimeout.SKIP)
		public void export() {
		}

	}

}
