package io.github.distributedlock.observation;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.aop.TestRedis;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link ObservedLockTemplate} against a real redis-server.
 */
@ExtendWith(RedisServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObservedLockTemplateTests {

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate redisTemplate;

	private RedisLockTemplate otherProcess;

	@BeforeAll
	void start(RedisServer server) {
		this.connectionFactory = TestRedis.connectionFactory(server);
		LockDefaults defaults = LockDefaults.STANDARD.withWaitTime(Duration.ZERO);
		this.redisTemplate = RedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
		this.otherProcess = RedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
	}

	@AfterAll
	void stop() {
		this.redisTemplate.close();
		this.otherProcess.close();
		this.connectionFactory.destroy();
	}

	@Test
	void shouldNotTagAHeldLockAsFailedInTheActiveTimer() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		ObservedLockTemplate template = new ObservedLockTemplate(this.redisTemplate, registry);
		String outcomeWhileHeld = template.execute(LockRequest.builder("in_progress").key("1").build(), (lock) -> {
			LongTaskTimer active = meters.get("distributed.lock.active").longTaskTimer();
			assertThat(active.activeTasks()).isEqualTo(1);
			return active.getId().getTag("lock.outcome");
		});
		// Long task timers keep the key values the observation had when it started.
		assertThat(outcomeWhileHeld).isEqualTo("unknown");
		assertThat(meters.get("distributed.lock").tag("lock.outcome", "acquired").timer().count()).isEqualTo(1);
		assertThat(meters.find("distributed.lock").tag("lock.outcome", "failed").timer()).isNull();
	}

	@Test
	void shouldObserveAcquiringAndRunningWithScopeLowAndKeyHighCardinality() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedLockTemplate template = new ObservedLockTemplate(this.redisTemplate, registry);
		Observation[] inside = new Observation[1];
		String result = template.execute(LockRequest.builder("server_access").key("42").origin("Deploy.run").build(),
				(lock) -> {
					inside[0] = registry.getCurrentObservation();
					return "done " + lock.fencingToken();
				});
		assertThat(result).startsWith("done ");
		assertThat(inside[0]).as("the lock's observation is current inside the work").isNotNull();
		assertThat(inside[0].getContext()).isInstanceOf(LockObservationContext.class);
		assertThat(registry).hasSingleObservationThat()
			.hasNameEqualTo("distributed.lock")
			.hasContextualNameEqualTo("lock server_access")
			.hasLowCardinalityKeyValue("lock.scope", "server_access")
			.hasLowCardinalityKeyValue("lock.outcome", "acquired")
			.hasHighCardinalityKeyValue("lock.key", "42")
			.hasHighCardinalityKeyValue("lock.origin", "Deploy.run")
			.doesNotHaveError()
			.hasBeenStarted()
			.hasBeenStopped();
	}

	@Test
	void shouldRecordATimeoutInTheObservationWhenLockIsTaken() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedLockTemplate template = new ObservedLockTemplate(this.redisTemplate, registry);
		try (LockHandle held = this.otherProcess.acquire(LockRequest.of("busy", "1"))) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.execute("busy", "1", (lock) -> "never"));
		}
		assertThat(registry).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("lock.outcome", "timed_out")
			.hasLowCardinalityKeyValue("lock.scope", "busy")
			.hasHighCardinalityKeyValue("lock.origin", "none")
			.assertThatError()
			.isInstanceOf(LockTimeoutException.class);
	}

	@Test
	void shouldRecordTheErrorOfFailedWorkAfterAcquiringInTheObservation() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedLockTemplate template = new ObservedLockTemplate(this.redisTemplate, registry);
		assertThatIllegalStateException().isThrownBy(() -> template.execute("failing", null, (lock) -> {
			throw new IllegalStateException("boom");
		}));
		assertThat(registry).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("lock.outcome", "acquired")
			.hasHighCardinalityKeyValue("lock.key", "")
			.assertThatError()
			.hasMessage("boom");
		assertThat(this.redisTemplate.isLocked("failing", null)).isFalse();
	}

	@Test
	void shouldObserveMultiLocksAsOne() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedLockTemplate template = new ObservedLockTemplate(this.redisTemplate, registry);
		int holds = template.executeAll(List.of(LockRequest.of("batch", "a"), LockRequest.of("batch", "b")),
				(lock) -> ((LockHandle) lock).locks().size());
		assertThat(holds).isEqualTo(2);
		assertThat(registry).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("lock.scope", "batch")
			.hasHighCardinalityKeyValue("lock.key", "a,b");
	}

	@Test
	void shouldPassHandlesAndQueriesThroughUnobserved() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedLockTemplate template = new ObservedLockTemplate(this.redisTemplate, registry);
		try (LockHandle held = template.acquire(LockRequest.of("handle", null))) {
			assertThat(template.isLocked("handle", null)).isTrue();
			assertThat(template.isHeldByCurrentThread("handle", null)).isTrue();
		}
		assertThat(registry).doesNotHaveAnyObservation();
		assertThat(template.getDelegate()).isSameAs(this.redisTemplate);
	}

}
