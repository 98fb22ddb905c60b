package io.github.distributedlock.observation;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.LockDefaults;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTimeoutException;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.aop.TestRedis;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ObservedReactiveLockTemplate} against a real redis-server: the blocking
 * template's observation, carried in the Reactor context.
 */
@ExtendWith(RedisServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObservedReactiveLockTemplateTests {

	private static final Duration BLOCK = Duration.ofSeconds(30);

	private LettuceConnectionFactory connectionFactory;

	private SimpleMeterRegistry meters;

	private ReactiveRedisLockTemplate reactiveTemplate;

	private ReactiveRedisLockTemplate otherProcess;

	@BeforeAll
	void start(RedisServer server) {
		this.connectionFactory = TestRedis.connectionFactory(server);
		this.meters = new SimpleMeterRegistry();
		LockDefaults defaults = LockDefaults.STANDARD.withWaitTime(Duration.ZERO);
		this.reactiveTemplate = ReactiveRedisLockTemplate.builder(this.connectionFactory)
			.defaults(defaults)
			.listener(new LockMetrics(this.meters))
			.build();
		this.otherProcess = ReactiveRedisLockTemplate.builder(this.connectionFactory).defaults(defaults).build();
	}

	@AfterAll
	void stop() {
		this.reactiveTemplate.close();
		this.otherProcess.close();
		this.connectionFactory.destroy();
	}

	@Test
	void shouldKeepTheLockOfLockedWorkFromADiscardHookBelow() {
		ObservedReactiveLockTemplate template = new ObservedReactiveLockTemplate(this.reactiveTemplate,
				TestObservationRegistry.create());
		LockRequest request = LockRequest.builder("observed").key("discarded").build();
		// A caller's hook that releases the handles it is given, as the template's own
		// do.
		Boolean lockedDuringWork = template
			.locked(request,
					Mono.delay(Duration.ofMillis(50))
						.then(this.otherProcess.acquire(request)
							.flatMap((handle) -> handle.release().thenReturn(false))
							.onErrorResume(LockTimeoutException.class, (ex) -> Mono.just(true))))
			.doOnDiscard(ReactiveLockHandle.class, (handle) -> handle.release().subscribe(null, (ex) -> {
			}))
			.block(BLOCK);
		assertThat(lockedDuringWork).as("another process found the lock taken while the work ran").isTrue();
	}

	@Test
	void shouldObserveAcquiringAndRunningWithTheBlockingTemplatesNameAndKeys() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedReactiveLockTemplate template = new ObservedReactiveLockTemplate(this.reactiveTemplate, registry);
		LockRequest request = LockRequest.builder("server_access").key("42").origin("Deploy.run").build();
		List<Object> inside = template
			.execute(request, (lock) -> Mono.deferContextual(
					(context) -> Mono.just(context.<Object>getOrDefault(ObservationThreadLocalAccessor.KEY, "none"))))
			.collectList()
			.block(BLOCK);
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
		assertThat(inside).singleElement()
			.as("the work sees the lock's observation in the Reactor context")
			.isInstanceOf(Observation.class);
		Observation.Context context = ((Observation) inside.get(0)).getContext();
		assertThat(context.getName()).isEqualTo("distributed.lock");
		assertThat(context).isInstanceOfSatisfying(LockObservationContext.class, (lock) -> {
			assertThat(lock.getReactiveLock()).isNotNull();
			assertThat(lock.getLock()).isNull();
		});
	}

	@Test
	void shouldTakeTheParentFromTheReactorContext() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedReactiveLockTemplate template = new ObservedReactiveLockTemplate(this.reactiveTemplate, registry);
		Observation parent = Observation.start("request", registry);
		String result = template.locked(LockRequest.of("child", "1"), Mono.just("done"))
			.contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, parent))
			.block(BLOCK);
		parent.stop();
		assertThat(result).isEqualTo("done");
		assertThat(registry).hasNumberOfObservationsEqualTo(2)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("distributed.lock")
				.hasLowCardinalityKeyValue("lock.outcome", "acquired")
				.hasParentObservationEqualTo(parent));
	}

	@Test
	void shouldRecordATimeoutAsTheObservationsError() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedReactiveLockTemplate template = new ObservedReactiveLockTemplate(this.reactiveTemplate, registry);
		LockRequest request = LockRequest.of("busy", "1");
		ReactiveLockHandle held = this.otherProcess.acquire(request).block(BLOCK);
		try {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.locked(request, Mono.just("never")).block(BLOCK));
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.locked(request, Flux.just("never")).blockLast(BLOCK));
		}
		finally {
			held.release().block(BLOCK);
		}
		assertThat(registry).hasNumberOfObservationsEqualTo(2)
			.forAllObservationsWithNameEqualTo("distributed.lock",
					(observation) -> observation.hasLowCardinalityKeyValue("lock.outcome", "timed_out")
						.hasLowCardinalityKeyValue("lock.scope", "busy")
						.assertThatError()
						.isInstanceOf(LockTimeoutException.class));
		assertThat(this.meters.get("distributed.lock.timeouts").tag("lock.scope", "busy").counter().count())
			.isEqualTo(2);
	}

	@Test
	void shouldRecordTheWaitAndHoldTimersOfTheBlockingEngine() {
		String scope = "timed";
		this.reactiveTemplate.locked(LockRequest.of(scope, "1"), Mono.delay(Duration.ofMillis(20))).block(BLOCK);
		assertThat(this.meters.get("distributed.lock.wait").tag("lock.scope", scope).timer().count()).isEqualTo(1);
		assertThat(this.meters.get("distributed.lock.hold").tag("lock.scope", scope).timer().count()).isEqualTo(1);
		assertThat(this.meters.get("distributed.lock.acquired").tag("lock.scope", scope).counter().count())
			.isEqualTo(1);
	}

	@Test
	void shouldStopTheObservationWhenTheSubscriberCancels() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedReactiveLockTemplate template = new ObservedReactiveLockTemplate(this.reactiveTemplate, registry);
		LockRequest request = LockRequest.of("cancelled", "1");
		List<Long> first = template.locked(request, Flux.interval(Duration.ofMillis(5)))
			.take(2)
			.collectList()
			.block(BLOCK);
		assertThat(first).containsExactly(0L, 1L);
		assertThat(registry).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("lock.outcome", "acquired")
			.hasBeenStopped();
		// The release on cancel is sent without waiting for it.
		LockRequest later = LockRequest.builder("cancelled").key("1").waitTime(Duration.ofSeconds(10)).build();
		ReactiveLockHandle again = this.otherProcess.acquire(later).block(BLOCK);
		assertThat(again).as("the cancelled work released the lock").isNotNull();
		again.release().block(BLOCK);
	}

	@Test
	void shouldPassHandlesThroughUnobserved() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		ObservedReactiveLockTemplate template = new ObservedReactiveLockTemplate(this.reactiveTemplate, registry);
		ReactiveLockHandle handle = template.acquire(LockRequest.of("handle", null)).block(BLOCK);
		assertThat(handle).isNotNull();
		handle.release().block(BLOCK);
		assertThat(registry).doesNotHaveAnyObservation();
		assertThat(template.getDelegate()).isSameAs(this.reactiveTemplate);
	}

}
