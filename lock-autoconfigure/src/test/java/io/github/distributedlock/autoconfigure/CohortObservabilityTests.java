package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.autoconfigure.actuate.DistributedLocksEndpoint.CohortsDescriptor;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cohorts show that they work: a startup log line, meters of openings, passes and how
 * long cohorts kept the lock from other processes, and the endpoint's {@code cohorts}
 * part, on a real redis-server with threads of one application contending for one lock.
 */
@ExtendWith({ RedisServerExtension.class, OutputCaptureExtension.class })
class CohortObservabilityTests {

	private static final int THREADS = 6;

	private static final int ROUNDS = 30;

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = TestRedis.contextRunner(server)
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("management.endpoints.web.exposure.include=distributedlocks");
	}

	@Test
	void shouldCountOpeningsPassesAndCohortTimesWithCohortsOnByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(output).contains("Cohorts are on", "up to 64 holders", "within 20ms");
			contend(context.getBean(LockTemplate.class), ROUNDS);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			FunctionCounter passes = registry.get("distributed.lock.cohort.passes").functionCounter();
			FunctionCounter openings = registry.get("distributed.lock.cohort.openings").functionCounter();
			FunctionTimer closed = registry.get("distributed.lock.cohort.duration").functionTimer();
			TimeGauge longest = registry.get("distributed.lock.cohort.duration.longest").timeGauge();
			assertThat(passes.count()).as("holds passed in memory").isPositive();
			assertThat(openings.count()).as("cohorts opened").isPositive().isLessThan(THREADS * ROUNDS);
			assertThat(passes.count() + openings.count()).isLessThanOrEqualTo(THREADS * ROUNDS);
			assertThat(closed.count()).as("cohorts closed").isPositive().isLessThanOrEqualTo(openings.count());
			assertThat(longest.value(TimeUnit.NANOSECONDS)).isPositive()
				.isLessThanOrEqualTo(closed.totalTime(TimeUnit.NANOSECONDS));
			CohortsDescriptor cohorts = context.getBean(DistributedLocksEndpoint.class).heldLocks().cohorts();
			assertThat(cohorts).isNotNull();
			assertThat(cohorts.enabled()).isTrue();
			assertThat(cohorts.maxHolders()).isEqualTo(64);
			assertThat(cohorts.maxTimeMillis()).isEqualTo(20);
			assertThat(cohorts.passes()).isEqualTo((long) passes.count());
			assertThat(cohorts.openings()).isEqualTo((long) openings.count());
			assertThat(cohorts.closed()).isEqualTo((long) closed.count());
			assertThat(cohorts.longestMillis()).isEqualTo((long) longest.value(TimeUnit.MILLISECONDS));
		});
	}

	@Test
	void shouldCountTheReactiveTemplatesCohortsWithTheBlockingOnes() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributedLockReactiveAutoConfiguration.class))
			.run((context) -> {
				ReactiveLockTemplate reactive = context.getBean(ReactiveLockTemplate.class);
				LockRequest request = LockRequest.builder("cohort")
					.key("reactive")
					.waitTime(Duration.ofSeconds(30))
					.build();
				Flux.range(0, THREADS)
					.flatMap((subscriber) -> Flux.range(0, ROUNDS)
						.concatMap((round) -> Mono.usingWhen(reactive.acquire(request),
								(lock) -> Mono.delay(Duration.ofNanos(300_000)), ReactiveLockHandle::release)))
					.then()
					.block(Duration.ofMinutes(2));
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				double passes = registry.get("distributed.lock.cohort.passes").functionCounter().count();
				assertThat(passes).as("holds passed in memory").isPositive();
				assertThat(passes)
					.isEqualTo(context.getBean(ReactiveRedisLockTemplate.class).cohortStatistics().passes());
				CohortsDescriptor cohorts = context.getBean(DistributedLocksEndpoint.class).heldLocks().cohorts();
				assertThat(cohorts).isNotNull();
				assertThat(cohorts.passes()).as("the endpoint counts them too").isEqualTo((long) passes);
			});
	}

	@Test
	void shouldShowCohortsOffWithoutMetersWhenTheyAreOff(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distributed-lock.cohorts.enabled=false").run((context) -> {
			contend(context.getBean(LockTemplate.class), 5);
			assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.cohort.passes").meter()).isNull();
			CohortsDescriptor cohorts = context.getBean(DistributedLocksEndpoint.class).heldLocks().cohorts();
			assertThat(cohorts).isNotNull();
			assertThat(cohorts.enabled()).isFalse();
			assertThat(cohorts.passes()).isZero();
			assertThat(cohorts.openings()).isZero();
		});
		assertThat(output).doesNotContain("Cohorts are on");
	}

	@Test
	void shouldLeaveCohortsOffWithoutMetersWhereTheyCannotBeOn(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distributed-lock.hand-off=false").run((context) -> {
			assertThat(context).hasNotFailed();
			contend(context.getBean(LockTemplate.class), 2);
			assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.cohort.passes").meter()).isNull();
			CohortsDescriptor cohorts = context.getBean(DistributedLocksEndpoint.class).heldLocks().cohorts();
			assertThat(cohorts).isNotNull();
			assertThat(cohorts.enabled()).isFalse();
		});
		assertThat(output).doesNotContain("Cohorts are on");
	}

	private static void contend(LockTemplate locks, int rounds) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> done = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				done.add(threads.submit(() -> {
					start.await();
					LockRequest request = LockRequest.builder("cohort")
						.key("hot")
						.waitTime(Duration.ofSeconds(30))
						.build();
					for (int round = 0; round < rounds; round++) {
						locks.executeWithoutResult(request,
								(lock) -> LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300)));
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> each : done) {
				each.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

}
