package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.LockAccessException;
import io.github.distributedlock.LockHandle;
import io.github.distributedlock.LockLeaseLostException;
import io.github.distributedlock.LockLostEvent;
import io.github.distributedlock.LockRequest;
import io.github.distributedlock.LockTemplate;
import io.github.distributedlock.ReactiveLockHandle;
import io.github.distributedlock.ReactiveLockTemplate;
import io.github.distributedlock.redis.ReactiveRedisLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistributedLockReactiveAutoConfiguration}.
 */
@ExtendWith(RedisServerExtension.class)
class DistributedLockReactiveAutoConfigurationTests {

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void connectTo(RedisServer server) {
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, DistributedLockReactiveAutoConfiguration.class))
			.withPropertyValues(TestRedis.properties(server));
	}

	@Test
	void shouldProvideAReactiveLockTemplateThatExcludesTheBlockingOne() {
		this.contextRunner.withPropertyValues("distributed-lock.key-prefix=app").run((context) -> {
			assertThat(context).hasSingleBean(ReactiveRedisLockTemplate.class).hasSingleBean(LockTemplate.class);
			ReactiveLockTemplate reactive = context.getBean(ReactiveLockTemplate.class);
			LockRequest request = LockRequest.builder("autoconfigured").key("1").waitTime(Duration.ZERO).build();
			assertThat(context.getBean(ReactiveRedisLockTemplate.class).lockKey(request)).startsWith("app:");
			try (LockHandle blocking = context.getBean(LockTemplate.class).acquire(request)) {
				assertThat(reactive.tryAcquire(request).blockOptional(Duration.ofSeconds(10))).isEmpty();
			}
			ReactiveLockHandle held = reactive.acquire(request).block(Duration.ofSeconds(10));
			assertThat(context.getBean(LockTemplate.class).tryAcquire(request)).isEmpty();
			held.release().block(Duration.ofSeconds(10));
		});
	}

	@Test
	void shouldTakeTheDefaultsFromTheProperties() {
		this.contextRunner.withPropertyValues("distributed-lock.wait-time=150ms").run((context) -> {
			ReactiveLockTemplate reactive = context.getBean(ReactiveLockTemplate.class);
			LockRequest request = LockRequest.of("autoconfigured", "defaults");
			ReactiveLockHandle held = reactive.acquire(request).block(Duration.ofSeconds(10));
			long start = System.nanoTime();
			assertThat(reactive.tryAcquire(request).blockOptional(Duration.ofSeconds(10))).isEmpty();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
			held.release().block(Duration.ofSeconds(10));
		});
	}

	@Test
	void shouldCheckTheReplicasOfEachReactiveAcquisitionAsTheBlockingTemplateDoes() {
		// The test's Redis has no replica: each acquisition must be refused.
		this.contextRunner
			.withPropertyValues("distributed-lock.replica-acknowledgements.replicas=1",
					"distributed-lock.replica-acknowledgements.timeout=50ms")
			.run((context) -> {
				LockRequest request = LockRequest.of("autoconfigured", "replicated");
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> context.getBean(LockTemplate.class).acquire(request))
					.withMessageContaining("0 of 1 replicas");
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> context.getBean(ReactiveLockTemplate.class)
						.acquire(request)
						.block(Duration.ofSeconds(10)))
					.withMessageContaining("0 of 1 replicas");
			});
	}

	@Test
	void shouldPublishALockLostEventWhenAReactiveHoldIsReleasedAfterItsLeaseEnded() {
		List<LockLostEvent> events = new CopyOnWriteArrayList<>();
		ApplicationListener<LockLostEvent> listener = events::add;
		this.contextRunner.withBean("lostListener", ApplicationListener.class, () -> listener).run((context) -> {
			ReactiveRedisLockTemplate reactive = context.getBean(ReactiveRedisLockTemplate.class);
			LockRequest request = LockRequest.builder("autoconfigured")
				.key("lost")
				.lease(Duration.ofMillis(100))
				.build();
			ReactiveLockHandle held = reactive.acquire(request).block(Duration.ofSeconds(10));
			await().until(() -> reactive.acquire(request)
				.flatMap((other) -> other.release().thenReturn(true))
				.blockOptional(Duration.ofSeconds(10))
				.isPresent());
			assertThatExceptionOfType(LockLeaseLostException.class)
				.isThrownBy(() -> held.release().block(Duration.ofSeconds(10)));
			await().until(() -> !events.isEmpty());
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.getLockName()).isEqualTo(request.name());
				assertThat(event.getFencingToken()).isEqualTo(held.fencingToken());
			});
		});
	}

	@Test
	void shouldWaitByTheKeyspaceEventsOfTheConfiguredDatabase(RedisServer server) {
		this.contextRunner
			.withPropertyValues("spring.data.redis.database=3", "distributed-lock.wait-strategy=keyspace-events",
					"distributed-lock.keyspace-events.configure=true")
			.run((context) -> {
				ReactiveRedisLockTemplate reactive = context.getBean(ReactiveRedisLockTemplate.class);
				LockRequest request = LockRequest.builder("reactive-keyspace").lease(Duration.ofSeconds(30)).build();
				LockHandle held = context.getBean(LockTemplate.class).acquire(request);
				Mono<ReactiveLockHandle> waiter = reactive
					.acquire(LockRequest.builder("reactive-keyspace").waitTime(Duration.ofSeconds(25)).build())
					.cache();
				waiter.subscribe();
				String channel = "__keyspace@3__:" + reactive.lockKey(request);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> String.valueOf(server.command("PUBSUB", "CHANNELS", "__keyspace@*"))
						.contains(channel));
				long start = System.nanoTime();
				held.close();
				waiter.flatMap(ReactiveLockHandle::release).block(Duration.ofSeconds(25));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("woken well before the 30 s lease ran out")
					.isLessThan(Duration.ofSeconds(15));
			});
	}

	@Test
	void shouldBackOffWhenTheApplicationDefinesItsOwnReactiveLockTemplate() {
		this.contextRunner.withUserConfiguration(OwnTemplate.class).run((context) -> {
			assertThat(context).hasSingleBean(ReactiveLockTemplate.class)
				.doesNotHaveBean(ReactiveRedisLockTemplate.class);
			assertThat(context.getBean(ReactiveLockTemplate.class)).isSameAs(OwnTemplate.TEMPLATE);
		});
	}

	@Test
	void shouldBackOffWithoutReactor() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Flux.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ReactiveLockTemplate.class)
				.hasSingleBean(LockTemplate.class));
	}

	@Test
	void shouldBackOffWhenDisabled() {
		this.contextRunner.withPropertyValues("distributed-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ReactiveLockTemplate.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnTemplate {

		static final ReactiveLockTemplate TEMPLATE = (request) -> Mono.empty();

		@Bean
		ReactiveLockTemplate ownReactiveLockTemplate() {
			return TEMPLATE;
		}

	}

}
