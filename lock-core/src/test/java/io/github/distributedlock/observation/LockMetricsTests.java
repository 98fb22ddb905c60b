package io.github.distributedlock.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.DistributedLock.OnTimeout;
import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockName;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.aop.TestRedis;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.redis.RedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockMetrics} and {@link LockGauges}, fed by a real template.
 */
@ExtendWith(RedisServerExtension.class)
class LockMetricsTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final LockMetrics metrics = new LockMetrics(this.registry);

	private LettuceConnectionFactory connectionFactory;

	private RedisLockTemplate template;

	private RedisLockTemplate otherProcess;

	@BeforeEach
	void start(RedisServer server) {
		this.connectionFactory = TestRedis.connectionFactory(server);
		LockDefaults defaults = LockDefaults.STANDARD.withWaitTime(Duration.ZERO);
		this.template = RedisLockTemplate.builder(this.connectionFactory)
			.defaults(defaults)
			.listener(this.metrics)
			.build();
		this.otherProcess = RedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
		new LockGauges(this.template).bindTo(this.registry);
	}

	@AfterEach
	void stop() {
		this.template.close();
		this.otherProcess.close();
		this.connectionFactory.destroy();
	}

	@Test
	void shouldTagMetersWithTheScopeKeyTheObservationsUse() {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.registry));
		new ObservedLockTemplate(this.template, observations).execute("report", "1", (lock) -> null);
		assertThat(this.registry.get("distributed.lock").tag("lock.scope", "report").timer().count()).isEqualTo(1);
		assertThat(this.registry.get("distributed.lock.acquired").tag("lock.scope", "report").counter().count())
			.isEqualTo(1);
		List<String> tagKeys = this.registry.getMeters()
			.stream()
			.map(Meter::getId)
			.flatMap((id) -> id.getTags().stream())
			.map(Tag::getKey)
			.distinct()
			.toList();
		assertThat(tagKeys).contains("lock.scope").doesNotContain("scope");
	}

	@Test
	void shouldCountAcquisitionsAndTimeWaitsAndHoldsByScope() {
		this.template.execute("report", "1", (lock) -> null);
		this.template.execute("report", "2", (lock) -> null);
		this.template.execute("invoice", "1", (lock) -> null);
		assertThat(this.registry.get("distributed.lock.acquired").tag("lock.scope", "report").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.get("distributed.lock.acquired").tag("lock.scope", "invoice").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("distributed.lock.wait").tag("lock.scope", "report").timer().count()).isEqualTo(2);
		assertThat(this.registry.get("distributed.lock.hold").tag("lock.scope", "report").timer().count()).isEqualTo(2);
		assertThat(this.registry.find("distributed.lock.acquired").meters())
			.allSatisfy((meter) -> assertThat(meter.getId().getTags()).extracting("key").containsOnly("lock.scope"));
	}

	@Test
	void shouldCountTimeoutsAndLostLeases() {
		try (LockHandle held = this.otherProcess.acquire(LockRequest.of("busy", null))) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.template.acquire(LockRequest.of("busy", null)));
			assertThat(this.template.tryAcquire(LockRequest.of("busy", null))).isEmpty();
		}
		assertThat(this.registry.get("distributed.lock.timeouts").tag("lock.scope", "busy").counter().count())
			.isEqualTo(2);
		LockHandle lost = this.template.acquire(LockRequest.builder("lost").lease(Duration.ofSeconds(30)).build());
		this.otherProcess.forceRelease(LockName.of("lost", null));
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lost::close);
		assertThat(this.registry.get("distributed.lock.leases.lost").tag("lock.scope", "lost").counter().count())
			.isEqualTo(1);
	}

	@Test
	void shouldCountSkippedAndFallbackCallsFromTheAspect() {
		LockName name = LockName.of("job", "1");
		this.metrics.timedOut(TimeoutContexts.of(OnTimeout.SKIP, name));
		this.metrics.timedOut(TimeoutContexts.of(OnTimeout.FALLBACK, name));
		this.metrics.timedOut(TimeoutContexts.of(OnTimeout.FALLBACK, name));
		this.metrics.timedOut(TimeoutContexts.of(OnTimeout.THROW, name));
		assertThat(this.registry.get("distributed.lock.skipped").tag("lock.scope", "job").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("distributed.lock.fallbacks").tag("lock.scope", "job").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.find("distributed.lock.timeouts").counter())
			.as("THROW is counted by the template, not twice")
			.isNull();
	}

	@Test
	void shouldRegisterEveryMeterOfADeclaredScopeAtZeroAndKeepItsCounts() {
		this.metrics.scopeDeclared("nightly");
		assertThat(this.registry.find("distributed.lock.acquired").tag("lock.scope", "nightly").counter()).isNotNull();
		assertThat(this.registry.getMeters())
			.filteredOn((meter) -> "nightly".equals(meter.getId().getTag("lock.scope")))
			.extracting((meter) -> meter.getId().getName())
			.containsExactlyInAnyOrder("distributed.lock.wait", "distributed.lock.hold", "distributed.lock.acquired",
					"distributed.lock.timeouts", "distributed.lock.skipped", "distributed.lock.fallbacks",
					"distributed.lock.leases.lost");
		assertThat(this.registry.getMeters())
			.filteredOn((meter) -> "nightly".equals(meter.getId().getTag("lock.scope")))
			.allSatisfy((meter) -> assertThat(meter.measure())
				.allSatisfy((measurement) -> assertThat(measurement.getValue()).as(meter.getId().toString()).isZero()));
		this.template.execute("nightly", "1", (lock) -> null);
		this.metrics.scopeDeclared("nightly");
		assertThat(this.registry.get("distributed.lock.acquired").tag("lock.scope", "nightly").counter().count())
			.isEqualTo(1);
	}

	@Test
	void shouldGaugeHeldLocksAndWaitingThreads() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (LockHandle first = this.template.acquire(LockRequest.of("gauge", "a"));
				LockHandle second = this.template.acquire(LockRequest.of("gauge", "b"));
				LockHandle foreign = this.otherProcess.acquire(LockRequest.of("gauge", "c"))) {
			assertThat(this.registry.get("distributed.lock.held").gauge().value()).isEqualTo(2);
			CountDownLatch started = new CountDownLatch(1);
			Future<?> waiter = executor.submit(() -> {
				started.countDown();
				this.template.tryAcquire(LockRequest.builder("gauge").key("c").waitTime(Duration.ofSeconds(20)).build())
					.ifPresent(LockHandle::close);
			});
			started.await();
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(
						() -> assertThat(this.registry.get("distributed.lock.waiting").gauge().value()).isEqualTo(1));
			foreign.close();
			waiter.get(10, TimeUnit.SECONDS);
			assertThat(this.registry.get("distributed.lock.waiting").gauge().value()).isZero();
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.registry.get("distributed.lock.held").gauge().value()).isZero();
	}

	@Test
	void shouldCountReactiveHoldsAndWaitingSubscriptionsInTheGauges() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try (ReactiveRedisLockTemplate reactive = ReactiveRedisLockTemplate.builder(this.connectionFactory).build()) {
			new LockGauges(this.template, reactive).bindTo(registry);
			try (LockHandle blocking = this.template.acquire(LockRequest.of("gauge", "blocking"))) {
				ReactiveLockHandle held = reactive.acquire(LockRequest.of("gauge", "reactive")).block(BLOCK);
				assertThat(registry.get("distributed.lock.held").gauge().value()).isEqualTo(2);
				assertThat(reactive.heldLocks()).singleElement().satisfies((lock) -> {
					assertThat(lock.name()).isEqualTo(LockName.of("gauge", "reactive"));
					assertThat(lock.fencingToken()).isEqualTo(held.fencingToken());
					assertThat(lock.thread()).isEqualTo("reactive subscription");
				});
				Mono<ReactiveLockHandle> waiter = reactive
					.acquire(LockRequest.builder("gauge").key("reactive").waitTime(Duration.ofSeconds(20)).build())
					.cache();
				waiter.subscribe();
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(registry.get("distributed.lock.waiting").gauge().value())
						.as("a subscription, no thread")
						.isEqualTo(1));
				held.release().block(BLOCK);
				ReactiveLockHandle next = waiter.block(BLOCK);
				assertThat(registry.get("distributed.lock.waiting").gauge().value()).isZero();
				assertThat(registry.get("distributed.lock.held").gauge().value()).isEqualTo(2);
				next.release().block(BLOCK);
			}
			assertThat(registry.get("distributed.lock.held").gauge().value()).isZero();
			assertThat(reactive.heldLocks()).isEmpty();
		}
	}

	/**
	 * Timeout contexts as the aspect creates them.
	 */
	static final class TimeoutContexts {

		static io.github.distributedlock.aop.LockTimeoutContext of(OnTimeout onTimeout, LockName name) {
			return io.github.distributedlock.aop.TimeoutContextFactory.create(onTimeout, List.of(name),
					new LockTimeoutException(name, Duration.ZERO, null));
		}

	}

}
